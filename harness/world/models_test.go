package world

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

func unit(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(s))
	}
	return out
}

// TestWorldModelsMatchTheirGoComputation runs the world's image_text model
// and captioner through ONNX Runtime on frames decoded from its videos and
// compares them with the same functions computed directly in Go
// (onnxbuild.ColourModel, ColourCaptioner); it also checks that the
// captions name what each scene shows.
func TestWorldModelsMatchTheirGoComputation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Generate(ctx, dir, Options{Seed: 4, Videos: 18, MinDuration: 3, MaxDuration: 6})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	man, err := models.LoadManifest(filepath.Join(dir, ModelsDir))
	if err != nil {
		t.Fatal(err)
	}
	dev := rt.Devices()[0]
	it, err := rt.OpenImageText(man, dev)
	if err != nil {
		t.Fatal(err)
	}
	capt, err := rt.OpenCaptioner(man, dev)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := imageprep.ReadConfig(filepath.Join(dir, ModelsDir, "image_text", "preprocessor_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	proc, err := imageprep.New(*cfg, imageprep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := onnxbuild.NewColourModel(onnxbuild.ColourImageSize)
	refCapt := &onnxbuild.ColourCaptioner{Model: ref}
	tok, err := models.LoadTokenizer(filepath.Join(dir, ModelsDir, "image_text", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}

	var frames []imageprep.Frame
	var scenes []*video
	var times []float64
	for _, v := range w.videos {
		d, err := decode.Open(ctx, filepath.Join(dir, VideosDir, v.id+".mp4"), decode.Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		at := []float64{v.duration / 2, v.duration * 0.1}
		got, err := d.Frames(ctx, []time.Duration{time.Duration(at[1] * float64(time.Second)), time.Duration(at[0] * float64(time.Second))}, decode.Size{}, nil)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			frames = append(frames, imageprep.Frame{Pix: f.RGB, Width: f.Width, Height: f.Height})
			scenes = append(scenes, v)
			times = append(times, f.PTS.Seconds())
		}
	}
	n := len(frames)
	s := onnxbuild.ColourImageSize
	data := make([]float32, n*proc.FrameLen())
	if err := proc.Batch(ctx, frames, data); err != nil {
		t.Fatal(err)
	}
	batch := models.ImageBatch{N: n, C: 3, H: s, W: s, Data: data}
	embs, err := it.EmbedImages(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := capt.Caption(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for i := range n {
		img := data[i*proc.FrameLen() : (i+1)*proc.FrameLen()]
		want := unit(ref.ImageEmbed(img))
		for k := range want {
			if math.Abs(float64(embs[i][k]-want[k])) > 2e-3 {
				t.Fatalf("frame %d (%s at %.2f s): image_embeds[%d] = %g, Go computes %g", i, scenes[i].id, times[i], k, embs[i][k], want[k])
			}
		}
		plan := refCapt.Plan(img)
		if !slices.Equal(caps[i].IDs, plan) {
			t.Fatalf("frame %d (%s): caption %v %q, Go plans %v %q", i, scenes[i].id, caps[i].IDs, caps[i].Text, plan, tok.Decode(plan))
		}
		// The caption names the background and every large object in view.
		sc := &scenes[i].scene
		if !strings.HasSuffix(caps[i].Text, sc.Background(times[i]).String()+" background") {
			t.Errorf("%s at %.2f s: caption %q, background is %s", scenes[i].id, times[i], caps[i].Text, sc.Background(times[i]))
		}
		var shown []Object
		for _, o := range sc.Objects {
			if o.visible(times[i]) {
				shown = append(shown, o)
			}
		}
		if len(shown) > 2 {
			continue // the caption names the two largest
		}
		for _, o := range shown {
			if !strings.Contains(caps[i].Text, o.Colour.String()+" "+o.Shape.String()) {
				t.Errorf("%s at %.2f s: caption %q does not name the %s %s", scenes[i].id, times[i], caps[i].Text, o.Colour, o.Shape)
			}
			named++
		}
	}
	if named == 0 {
		t.Fatal("no caption named two objects")
	}

	texts := []string{"a pink square", "What colour is the square? pink", "Is there a grey star in the video?", "nothing to see here", "Squares and CIRCLES, gray."}
	temb, err := it.EmbedTexts(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		ids, err := tok.Encode(text, true)
		if err != nil {
			t.Fatal(err)
		}
		want := unit(ref.TextEmbed(ids))
		for k := range want {
			if math.Abs(float64(temb[i][k]-want[k])) > 1e-5 {
				t.Fatalf("%q: text_embeds[%d] = %g, Go computes %g", text, k, temb[i][k], want[k])
			}
		}
	}
}

// TestColourModelsOnAnyFrame checks the models on frames that are not the
// world's: solid and noisy near-solid frames of every colour at several
// sizes, and every shape at another size and aspect ratio.
func TestColourModelsOnAnyFrame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := onnxbuild.WriteColourModels(dir); err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	man, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, rt.Devices()[0])
	if err != nil {
		t.Fatal(err)
	}
	capt, err := rt.OpenCaptioner(man, rt.Devices()[0])
	if err != nil {
		t.Fatal(err)
	}
	names := append(append([]string{}, onnxbuild.ColourNames...), "gray")
	texts, err := it.EmbedTexts(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	var frames []imageprep.Frame
	var want []string
	seed := uint32(1)
	noise := func() int { seed = seed*1664525 + 1013904223; return int(seed>>24)%25 - 12 }
	for _, size := range [][2]int{{64, 48}, {97, 131}, {320, 180}} {
		for _, c := range Colours() {
			for _, noisy := range []bool{false, true} {
				w, h := size[0], size[1]
				pix := make([]byte, w*h*3)
				rgb := c.RGB()
				for i := range pix {
					v := int(rgb[i%3])
					if noisy {
						v += noise()
					}
					pix[i] = byte(min(255, max(0, v)))
				}
				frames = append(frames, imageprep.Frame{Pix: pix, Width: w, Height: h})
				want = append(want, c.String())
			}
		}
	}
	embs, err := it.EmbedFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := capt.CaptionFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	zs := it.ZeroShot(embs, texts)
	for i, row := range zs {
		best := 0
		for j := range onnxbuild.ColourNames { // "gray" scores as "grey"
			if row[j] > row[best] {
				best = j
			}
		}
		if names[best] != want[i] {
			t.Errorf("frame %d (%dx%d): zero-shot says %s, want %s", i, frames[i].Width, frames[i].Height, names[best], want[i])
		}
		if math.Abs(row[len(row)-1]-row[slices.Index(names, "grey")]) > 1e-9 {
			t.Errorf("gray and grey score differently: %v", row)
		}
		if caps[i].Text != "a "+want[i]+" background" {
			t.Errorf("frame %d (%dx%d, %s): caption %q", i, frames[i].Width, frames[i].Height, want[i], caps[i].Text)
		}
	}

	// Each shape, in a colour, on another background, at 320x240.
	frames = frames[:0]
	var wantCap []string
	for _, s := range Shapes() {
		sc := Scene{Duration: 1, Backgrounds: []Segment{{0, 1, Blue}},
			Objects: []Object{{Shape: s, Colour: Yellow, Size: 0.3, Start: 0, End: 1, X0: 0.4, Y0: 0.5, X1: 0.4, Y1: 0.5}}}
		pix := make([]byte, 320*240*3)
		sc.Render(0.5, 320, 240, pix)
		frames = append(frames, imageprep.Frame{Pix: pix, Width: 320, Height: 240})
		wantCap = append(wantCap, "a yellow "+s.String()+" on a blue background")
	}
	caps, err = capt.CaptionFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	for i := range caps {
		if caps[i].Text != wantCap[i] {
			t.Errorf("caption %q, want %q", caps[i].Text, wantCap[i])
		}
	}
}
