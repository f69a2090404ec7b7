package gpuprep

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// The preprocessing kernels promise imageprep's output bit for bit (max
// abs diff 0): every step is integer arithmetic or a lookup in imageprep's
// own level tables. These tests hold Host's port of the kernels to that
// on imageprep's test images and configurations, on random frames of many
// shapes, and on the Python (Pillow + numpy) pipeline outputs.

const imageprepData = "../testdata"

// testImages are imageprep's test sources (reference.bin), by name.
func testImages(t *testing.T) (map[string]imageprep.Frame, []pipelineCase, []byte) {
	t.Helper()
	idx, err := os.ReadFile(filepath.Join(imageprepData, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []pipelineCase `json:"cases"`
	}
	if err := json.Unmarshal(idx, &ref); err != nil {
		t.Fatal(err)
	}
	blob, err := os.ReadFile(filepath.Join(imageprepData, "reference.bin"))
	if err != nil {
		t.Fatal(err)
	}
	frames := map[string]imageprep.Frame{}
	var pipelines []pipelineCase
	for _, c := range ref.Cases {
		switch c.Op {
		case "source":
			frames[c.Source] = imageprep.Frame{Pix: blob[c.Offset : c.Offset+c.Length], Width: c.Width, Height: c.Height}
		case "pipeline":
			pipelines = append(pipelines, c)
		}
	}
	if len(frames) < 3 || len(pipelines) < 4 {
		t.Fatalf("%d sources and %d pipelines in imageprep's reference; want 3 and 4", len(frames), len(pipelines))
	}
	return frames, pipelines, blob
}

type pipelineCase struct {
	Name   string          `json:"name"`
	Source string          `json:"source"`
	Op     string          `json:"op"`
	Offset int             `json:"offset"`
	Length int             `json:"length"`
	Width  int             `json:"width"`
	Height int             `json:"height"`
	Config json.RawMessage `json:"config"`
}

func randomFrame(rng *rand.Rand, w, h, pad int) imageprep.Frame {
	stride := 3*w + pad
	pix := make([]byte, (h-1)*stride+3*w)
	for i := range pix {
		pix[i] = byte(rng.IntN(256))
	}
	if pad == 0 {
		stride = 0
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h, Stride: stride}
}

// edgeFrame has hard edges and flat runs at 0 and 255, where bicubic
// overshoots and the clipping to 0..255 decides.
func edgeFrame(w, h int) imageprep.Frame {
	pix := make([]byte, 3*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			on := (x/7+y/5)%2 == 0
			for c := 0; c < 3; c++ {
				if on != (c == 1) {
					pix[3*(y*w+x)+c] = 255
				}
			}
		}
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h}
}

func config(t *testing.T, js string) imageprep.Config {
	t.Helper()
	var cfg *imageprep.Config
	var err error
	if strings.HasSuffix(js, ".json") {
		cfg, err = imageprep.ReadConfig(filepath.Join(imageprepData, js))
	} else {
		cfg, err = imageprep.ParseConfig([]byte(js), "test config")
	}
	if err != nil {
		t.Fatal(err)
	}
	return *cfg
}

// sameBits reports the first index where got and want differ in bits, and
// the largest absolute difference.
func sameBits(got, want []float32) (first int, maxAbs float64) {
	first = -1
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if first < 0 {
				first = i
			}
			maxAbs = math.Max(maxAbs, math.Abs(float64(got[i])-float64(want[i])))
		}
	}
	return first, maxAbs
}

func TestHostPrepEqualsImageprep(t *testing.T) {
	t.Parallel()
	images, _, _ := testImages(t)
	rng := rand.New(rand.NewPCG(23, 5))
	var frames []imageprep.Frame
	for _, name := range []string{"a", "b", "tall"} {
		frames = append(frames, images[name])
	}
	for _, sz := range [][3]int{{160, 90, 0}, {90, 160, 7}, {225, 224, 0}, {224, 224, 0}, {7, 5, 0}, {1, 1, 0}, {640, 360, 3}} {
		frames = append(frames, randomFrame(rng, sz[0], sz[1], sz[2]))
	}
	frames = append(frames, edgeFrame(300, 170))
	configs := []struct{ name, cfg string }{
		{"clip b/32 file", "clip-vit-base-patch32.json"},
		{"clip l/14-336 file", "clip-vit-large-patch14-336.json"},
		{"siglip file", "siglip-base-patch16-224.json"},
		{"clip small crop", `{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 48}, "crop_size": {"height": 40, "width": 40}}`},
		{"crop larger than image", `{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 30}, "crop_size": {"height": 36, "width": 52}}`},
		{"siglip bilinear", `{"image_processor_type": "SiglipImageProcessor", "resample": 2, "size": {"height": 32, "width": 32}}`},
		{"upscale box", `{"image_processor_type": "ViTImageProcessor", "resample": 4, "size": {"height": 300, "width": 200}}`},
		{"hamming", `{"image_processor_type": "BlipImageProcessor", "resample": 5, "size": {"height": 64, "width": 96}}`},
		{"lanczos", `{"image_processor_type": "SiglipImageProcessor", "resample": 1, "size": {"height": 50, "width": 50}}`},
		{"crop only", `{"image_processor_type": "CLIPImageProcessor", "do_resize": false, "crop_size": {"height": 64, "width": 80}}`},
		{"no normalise", `{"image_processor_type": "SiglipImageProcessor", "do_normalize": false, "do_rescale": false, "size": {"height": 24, "width": 24}}`},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			p, err := imageprep.New(config(t, c.cfg), imageprep.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, len(frames)*p.FrameLen())
			if err := p.Batch(context.Background(), frames, want); err != nil {
				t.Fatal(err)
			}
			for _, batch := range []int{1, 3, 64} {
				dev, _ := Host{}.OpenPrep()
				got := make([]float32, len(want))
				if err := Preprocess(context.Background(), dev, p, frames, got, batch); err != nil {
					t.Fatal(err)
				}
				if at, d := sameBits(got, want); at >= 0 {
					t.Fatalf("batch %d: frame %d value %d = %v, imageprep %v (max abs diff %g)", batch, at/p.FrameLen(), at%p.FrameLen(), got[at], want[at], d)
				}
			}
		})
	}
}

// TestHostPrepEqualsPython: the Python pipelines of imageprep's reference
// (Pillow resize, numpy float32 rescale and normalise) bit for bit.
func TestHostPrepEqualsPython(t *testing.T) {
	t.Parallel()
	images, pipelines, blob := testImages(t)
	for _, c := range pipelines {
		t.Run(c.Name, func(t *testing.T) {
			p, err := imageprep.New(config(t, string(c.Config)), imageprep.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, p.FrameLen())
			if c.Length != 4*len(want) {
				t.Fatalf("reference has %d bytes for %d values", c.Length, len(want))
			}
			for i := range want {
				want[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[c.Offset+4*i:]))
			}
			dev, _ := Host{}.OpenPrep()
			got := make([]float32, len(want))
			if err := Preprocess(context.Background(), dev, p, []imageprep.Frame{images[c.Source]}, got, 1); err != nil {
				t.Fatal(err)
			}
			if at, d := sameBits(got, want); at >= 0 {
				t.Fatalf("value %d = %v, Python %v (max abs diff %g)", at, got[at], want[at], d)
			}
		})
	}
}

// TestHostPrep1080p is the device check's shape: a 1080p frame to CLIP's
// 224 crop and to SigLIP's 448 square.
func TestHostPrep1080p(t *testing.T) {
	if testing.Short() {
		t.Skip("1080p frames: not in -short")
	}
	rng := rand.New(rand.NewPCG(1080, 1))
	frames := []imageprep.Frame{randomFrame(rng, 1920, 1080, 0), edgeFrame(1920, 1080)}
	for _, cfg := range []string{"clip-vit-base-patch32.json", `{"image_processor_type": "SiglipImageProcessor", "size": {"height": 448, "width": 448}}`} {
		p, err := imageprep.New(config(t, cfg), imageprep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, len(frames)*p.FrameLen())
		if err := p.Batch(context.Background(), frames, want); err != nil {
			t.Fatal(err)
		}
		dev, _ := Host{}.OpenPrep()
		got := make([]float32, len(want))
		if err := Preprocess(context.Background(), dev, p, frames, got, 2); err != nil {
			t.Fatal(err)
		}
		if at, d := sameBits(got, want); at >= 0 {
			t.Fatalf("%s: value %d = %v, imageprep %v (max abs diff %g)", cfg, at, got[at], want[at], d)
		}
	}
}

func TestPrepRefuses(t *testing.T) {
	t.Parallel()
	p, err := imageprep.New(config(t, "clip-vit-base-patch32.json"), imageprep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(64, 48)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	good := randomFrame(rng, 64, 48, 0)
	short := good
	short.Pix = short.Pix[:100]
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bad := *plan
	bad.Bits = 16
	tables := *plan
	tables.HN = tables.HN[:3]
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"another size", func() error {
			return prepOnce(Host{}, plan, 2, []imageprep.Frame{randomFrame(rng, 48, 64, 0)}, context.Background())
		}, "the plan is for 64x48"},
		{"short pixels", func() error { return prepOnce(Host{}, plan, 2, []imageprep.Frame{short}, context.Background()) }, "needs"},
		{"over the batch", func() error {
			return prepOnce(Host{}, plan, 1, []imageprep.Frame{good, good}, context.Background())
		}, "for a batch of 1"},
		{"cancelled", func() error { return prepOnce(Host{}, plan, 1, []imageprep.Frame{good}, cancelled) }, "context canceled"},
		{"fixed point", func() error { return prepOnce(Host{}, &bad, 1, nil, context.Background()) }, "fractional bits"},
		{"tables", func() error { return prepOnce(Host{}, &tables, 1, nil, context.Background()) }, "tables do not match"},
		{"batch", func() error { return prepOnce(Host{}, plan, 0, nil, context.Background()) }, "1..65535"},
		{"output", func() error {
			dev, _ := Host{}.OpenPrep()
			return Preprocess(context.Background(), dev, p, []imageprep.Frame{good}, make([]float32, 10), 1)
		}, "output holds 10 values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// prepOnce opens a Prep on d, loads frames, runs them and closes it.
func prepOnce(d Host, plan *imageprep.Plan, batch int, frames []imageprep.Frame, ctx context.Context) error {
	dev, err := d.OpenPrep()
	if err != nil {
		return err
	}
	p, err := dev.NewPrep(plan, batch)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.Load(frames); err != nil {
		return err
	}
	return errors.Join(p.Run(ctx, max(1, len(frames))), p.Sync())
}
