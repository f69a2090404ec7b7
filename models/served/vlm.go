package served

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/openai"
)

// VLM is a served vlm_reader or screen_reader: a features.VLMScorer whose
// letters' log-probabilities a server's vision-language model gives.
type VLM struct {
	client *openai.Client
	stats  *Stats
	images *imageMemo
	// seen holds the image lists of the prompts of the group being scored,
	// for Stats.PrefixShared.
	seenMu sync.Mutex
	seen   map[uint64]bool
	seed   maphash.Seed
}

// NewVLM opens a served VLM reader.
func NewVLM(cfg Config) (*VLM, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	seed := maphash.MakeSeed()
	return &VLM{client: c, stats: newStats(cfg.Role, cfg.Server.Model, cfg.Server.URL), images: newImageMemo(seed), seed: seed}, nil
}

// Stats returns the reader's counts.
func (v *VLM) Stats() *Stats { return v.stats }

// Frames shrinks the frames to LongSide and packs them for Score.
func (v *VLM) Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	return packFrames(ctx, frames)
}

// Fits accepts every prompt with its placeholders first: the server's
// context holds 32 frames at 448 pixels (vllm serve --max-model-len), and a
// prompt it refuses fails its item with reason server.
func (v *VLM) Fits(p models.VLMPrompt) error {
	_, err := splitImages(p)
	return err
}

// splitImages returns the text after the prompt's image placeholders,
// which must all come first (the frames first, so that a video's prompts
// share a prefix).
func splitImages(p models.VLMPrompt) (string, error) {
	rest := p.Text
	for range p.Images.N {
		r, ok := strings.CutPrefix(rest, models.ImagePlaceholder)
		if !ok {
			return "", fmt.Errorf("%w: a served VLM takes the %d images first, the text after them", errPrompt, p.Images.N)
		}
		rest = r
	}
	if strings.Contains(rest, models.ImagePlaceholder) {
		return "", fmt.Errorf("%w: more placeholders than the prompt's %d images", errPrompt, p.Images.N)
	}
	return strings.TrimLeft(rest, "\n"), nil
}

// Score returns log p(letter) per prompt, in the order given; a prompt the
// server failed has no scores (nil). The prompts of one call are one
// video's (the feature stage scores video by video): they are sent
// together, and Stats counts those whose images an earlier one of the
// video carried.
func (v *VLM) Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error) {
	reqs := make([]openai.Request, len(prompts))
	images := make([]int, len(prompts))
	shared := make([]bool, len(prompts))
	for i, p := range prompts {
		text, err := splitImages(p)
		if err != nil {
			return nil, err
		}
		parts := make([]openai.Part, p.Images.N)
		var list maphash.Hash
		list.SetSeed(v.seed)
		for k := range p.Images.N {
			im, sum, err := v.images.encode(p.Images, k)
			if err != nil {
				return nil, err
			}
			parts[k] = openai.Part{Image: im}
			fmt.Fprintf(&list, "%x;", sum)
		}
		images[i] = p.Images.N
		if p.Images.N > 0 {
			shared[i] = v.sawImages(list.Sum64(), i == 0)
		}
		user, prefill := splitAnswer(text)
		reqs[i] = openai.Request{Messages: messages(parts, user, prefill), Letters: letters(p.Options)}
	}
	return scoreAll(ctx, v.client, v.stats, reqs, images, shared)
}

// sawImages records an image list of the current group and reports whether
// the group had it already; newGroup starts a group (each Score call is
// one video's prompts, or a part of them: the group is kept across calls
// until a call's first list is new and the set grows past a video's).
func (v *VLM) sawImages(h uint64, newGroup bool) bool {
	v.seenMu.Lock()
	defer v.seenMu.Unlock()
	if v.seen == nil || (newGroup && !v.seen[h] && len(v.seen) >= maxGroupLists) {
		v.seen = map[uint64]bool{}
	}
	if v.seen[h] {
		return true
	}
	v.seen[h] = true
	return false
}

// maxGroupLists bounds the image lists remembered: more than one video's
// conditions and option orders (4 sets x 4 orders x a few items).
const maxGroupLists = 256

// imageMemo keeps the encoded form of recent frames: a video's frames
// recur in its items' conditions (the in-order 32 shuffled, the centre
// frame among them), and each is encoded once.
type imageMemo struct {
	mu    sync.Mutex
	seed  maphash.Seed
	byKey map[uint64]*openai.Image
	order []uint64
}

// memoSize bounds the memo: a few videos' frames.
const memoSize = 512

func newImageMemo(seed maphash.Seed) *imageMemo {
	return &imageMemo{seed: seed, byKey: map[uint64]*openai.Image{}}
}

// encode returns image k of b encoded for the server and a hash of its
// pixels (in-process only: it keys the memo and the prefix count, never an
// output).
func (m *imageMemo) encode(b models.ImageBatch, k int) (*openai.Image, uint64, error) {
	pix, err := unpack(b, k)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errPrompt, err)
	}
	var h maphash.Hash
	h.SetSeed(m.seed)
	fmt.Fprintf(&h, "%dx%d;", b.W, b.H)
	h.Write(pix)
	sum := h.Sum64()
	m.mu.Lock()
	im, ok := m.byKey[sum]
	m.mu.Unlock()
	if ok {
		return im, sum, nil
	}
	im, err = encodeRGB(pix, b.W, b.H)
	if err != nil {
		return nil, 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byKey[sum]; !ok {
		m.byKey[sum] = im
		m.order = append(m.order, sum)
		if len(m.order) > memoSize {
			delete(m.byKey, m.order[0])
			m.order = m.order[1:]
		}
	}
	return im, sum, nil
}

// encodeRGB is the one image encoder of the served roles.
func encodeRGB(pix []byte, w, h int) (*openai.Image, error) {
	return openai.RGBImage(pix, w, h)
}
