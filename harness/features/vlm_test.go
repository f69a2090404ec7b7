package features

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// fakeVLM stands in for vlm_reader: each frame becomes one value (its mean
// pixel, which tells frames apart), a prompt fits when it shows at most
// maxImages frames, and the letter scores are log-softmax of (sum of the
// frame values, 0, ...), so they depend on which frames were shown.
type fakeVLM struct {
	maxImages int
	mu        sync.Mutex
	prompts   []models.VLMPrompt
}

func (f *fakeVLM) Frames(_ context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	b := models.ImageBatch{N: len(frames), C: 1, H: 1, W: 1}
	for _, fr := range frames {
		var s float64
		for _, p := range fr.Pix {
			s += float64(p)
		}
		b.Data = append(b.Data, float32(s/float64(len(fr.Pix))/255))
	}
	return b, nil
}

func (f *fakeVLM) Fits(p models.VLMPrompt) error {
	if p.Images.N > f.maxImages {
		return errTooLong
	}
	return nil
}

var errTooLong = errors.New("prompt too long")

func (f *fakeVLM) Score(_ context.Context, ps []models.VLMPrompt) ([][]float64, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, ps...)
	f.mu.Unlock()
	out := make([][]float64, len(ps))
	for i, p := range ps {
		logits := make([]float64, p.Options)
		for _, v := range p.Images.Data {
			logits[0] += float64(v)
		}
		z := math.Log(math.Exp(logits[0]) + float64(p.Options-1))
		for j := range logits {
			out[i] = append(out[i], logits[j]-z)
		}
	}
	return out, nil
}

// TestReadVLM runs the three VLM frame sets on real videos with a fake
// reader that takes at most 8 frames: the centre set shows one frame, the
// 32-frame sets are halved twice to fit, the shuffled set shows the uniform
// frames in another order, a bad video gives no scores, and a second call
// reads every score from the cache without calling the reader.
func TestReadVLM(t *testing.T) {
	t.Parallel()
	root := videoRoot(t)
	items := testItems()
	centre, shuffled, tenth := VLMSets(UniformFrames)
	cacheDir := t.TempDir()
	f := &fakeVLM{maxImages: 8}
	opt := VLMOptions{
		Root: root, CacheDir: cacheDir, Sets: []VLMSet{centre, shuffled, tenth},
		Reader: f, ReaderName: "fake", Size: decode.Size{Short: 32},
		Decode: decode.Pool{Workers: 2, Threads: 1}, Seed: 7,
	}
	ctx := context.Background()
	got, err := ReadVLM(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		ok := it.ID == "whole" || it.ID == "clip" || it.ID == "short" || it.ID == "bars"
		if (got[i] != nil) != ok {
			t.Errorf("item %s: scores %v, want them only for a decodable video", it.ID, got[i])
		}
		for _, s := range got[i] {
			if len(s) != 2 {
				t.Errorf("item %s: %d scores for 2 options", it.ID, len(s))
			}
		}
	}
	// Four items, three sets each; centre has 1 frame, the others 8.
	if len(f.prompts) != 12 {
		t.Fatalf("%d prompts, want 12", len(f.prompts))
	}
	for k, p := range f.prompts {
		want := 8
		if k%3 == 0 {
			want = 1
		}
		if p.Images.N != want || strings.Count(p.Text, models.ImagePlaceholder) != want || !strings.HasSuffix(p.Text, "Answer:") {
			t.Errorf("prompt %d shows %d frames (%d placeholders), want %d:\n%s", k, p.Images.N, strings.Count(p.Text, models.ImagePlaceholder), want, p.Text)
		}
	}

	// The shuffled set is the uniform frames out of time order: the same
	// frames as an unshuffled read, in another order.
	plain := opt
	plain.CacheDir = t.TempDir()
	plain.Sets = []VLMSet{{Name: "uniform", Sampler: shuffled.Sampler}}
	pf := &fakeVLM{maxImages: 32}
	plain.Reader = pf
	if _, err := ReadVLM(ctx, items[:1], plain); err != nil {
		t.Fatal(err)
	}
	sf := &fakeVLM{maxImages: 32}
	sopt := opt
	sopt.CacheDir, sopt.Sets, sopt.Reader = t.TempDir(), []VLMSet{shuffled}, sf
	if _, err := ReadVLM(ctx, items[:1], sopt); err != nil {
		t.Fatal(err)
	}
	inOrder, inShuffle := pf.prompts[0].Images.Data, sf.prompts[0].Images.Data
	if len(inOrder) != 32 || slices.Equal(inOrder, inShuffle) {
		t.Errorf("shuffled frames %v equal the frames in order %v", inShuffle, inOrder)
	}
	a, b := slices.Clone(inOrder), slices.Clone(inShuffle)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Errorf("the shuffle shows other frames than the uniform set")
	}

	// Resume: every score from the cache, bit for bit.
	f2 := &fakeVLM{maxImages: 8}
	opt.Reader = f2
	again, err := ReadVLM(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(f2.prompts) != 0 {
		t.Errorf("second call scored %d prompts; want all from the cache", len(f2.prompts))
	}
	for i := range items {
		for name, s := range got[i] {
			if !slices.Equal(s, again[i][name]) {
				t.Errorf("item %d set %s: cached %v, computed %v", i, name, again[i][name], s)
			}
		}
	}
	// Another seed draws another tenth and shuffle: a new key.
	opt.Seed = 8
	if _, err := ReadVLM(ctx, items, opt); err != nil {
		t.Fatal(err)
	}
	if len(f2.prompts) != 12 {
		t.Errorf("another seed scored %d prompts, want 12 (a new cache key)", len(f2.prompts))
	}
}
