package models

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestSmallModelsDirPassesCheck checks that onnxbuild.WriteModelsDir (what
// `vidscreen models init` writes) is a complete models directory: every
// role loads, and its generated tokenizer gives BERT's special ids, one id
// per common word and characters for the rest.
func TestSmallModelsDirPassesCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckDir(context.Background(), dir, RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	if len(rep.Roles) != len(Roles) || !rep.OK() {
		t.Fatalf("report:\n%s", rep)
	}
	// The ONNX files are found under onnx/ (the Hub's layout) and named so.
	for _, rr := range rep.Roles {
		n := 0
		for _, s := range rr.Sessions {
			if !strings.HasPrefix(s.File, "onnx/") {
				t.Errorf("%s: session of %s, want a file under onnx/", rr.Role, s.File)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no ONNX session checked", rr.Role)
		}
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "text_embed", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode("What is the Man doing? zq", true)
	if err != nil {
		t.Fatal(err)
	}
	word := func(s string) int { id, _ := tok.TokenID(s); return id }
	want := []int{101, word("what"), word("is"), word("the"), word("man"), word("doing"), word("?"), word("z"), word("##q"), 102}
	if !slices.Equal(ids, want) || slices.Contains(ids, 100) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if got := tok.Decode(ids); got != "what is the man doing? zq" {
		t.Errorf("decode %q", got)
	}
}

// TestSmallModelsDirCaptions checks that the captioner `vidscreen models
// init` writes says what a frame shows, with the tokenizer it ships, so
// that a clone without any downloaded tokenizer gets non-empty, meaningful
// captions (issue 24: its captions used to decode to "").
func TestSmallModelsDirCaptions(t *testing.T) {
	rt, _ := tinyModels(t)
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.OpenCaptioner(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// frame draws a w x h frame of colour bg with a centred square of
	// colour fg and side s (no square when s is 0).
	frame := func(w, h, s int, bg, fg [3]byte) imageprep.Frame {
		pix := make([]byte, 3*w*h)
		for y := range h {
			for x := range w {
				c := bg
				if s > 0 && x >= (w-s)/2 && x < (w+s)/2 && y >= (h-s)/2 && y < (h+s)/2 {
					c = fg
				}
				copy(pix[3*(y*w+x):], c[:])
			}
		}
		return imageprep.Frame{Pix: pix, Width: w, Height: h}
	}
	red, blue, yellow, green := [3]byte{220, 30, 30}, [3]byte{30, 70, 220}, [3]byte{245, 215, 30}, [3]byte{30, 160, 50}
	for _, tc := range []struct {
		frame imageprep.Frame
		want  string
	}{
		{frame(160, 120, 50, blue, red), "a red square on a blue background"},
		{frame(320, 240, 90, green, yellow), "a yellow square on a green background"},
		{frame(64, 64, 0, yellow, yellow), "a yellow background"},
	} {
		got, err := c.CaptionFrames(context.Background(), []imageprep.Frame{tc.frame})
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Text != tc.want {
			t.Errorf("%dx%d frame: caption %q (ids %v), want %q", tc.frame.Width, tc.frame.Height, got[0].Text, got[0].IDs, tc.want)
		}
	}
}

// TestSmallModelsDirVLMReader: the VLM `models init` writes, whose decoder
// takes a key-value cache (transformers.js generates through it), scores
// letters through VLMReader's one prefill with an empty cache as the same
// weights do computed in Go without one.
func TestSmallModelsDirVLMReader(t *testing.T) {
	rt, _ := tinyModels(t)
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := rt.OpenVLMReader(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, ok := v.dec.Input("past_key_values.0.key"); !ok {
		t.Fatalf("%s has no cache inputs", v.dec.Path())
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "vlm_reader", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref := onnxbuild.NewVLM(onnxbuild.TinyVLMVision, onnxbuild.TinyVLMText, 5)
	frames := randomImages(11, 3, 3, 32)
	prompts := []VLMPrompt{
		{Text: "<image> what is the man doing? A. eating B. running Answer:", Images: frames.slice(0, 1), Options: 2},
		{Text: "frames <image> then <image> which? A B C", Images: frames.slice(1, 3), Options: 3},
		{Text: "no frames: answer", Options: 4},
	}
	got, err := v.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range prompts {
		pieces := []any{[]int{101}} // config.json's bos_token_id
		for k, tx := range strings.Split(p.Text, ImagePlaceholder) {
			if k > 0 {
				pieces = append(pieces, p.Images.image(k-1))
			}
			ids, err := tok.Encode(tx, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) > 0 {
				pieces = append(pieces, ids)
			}
		}
		logits := ref.Logits(pieces...)
		want := v.letters.score(logits.Row(logits.Rows-1), p.Options)
		for k := range want {
			if math.Abs(got[i][k]-want[k]) > 1e-4 {
				t.Errorf("prompt %d letter %c: %g, want %g", i, 'A'+k, got[i][k], want[k])
			}
		}
	}
}
