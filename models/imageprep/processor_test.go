package imageprep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func randomFrame(rng *rand.Rand, w, h int) Frame {
	pix := make([]byte, 3*w*h)
	for i := range pix {
		pix[i] = byte(rng.IntN(256))
	}
	return Frame{Pix: pix, Width: w, Height: h}
}

func clipConfig(t testing.TB) Config {
	c, err := ReadConfig("testdata/clip-vit-base-patch32.json")
	if err != nil {
		t.Fatal(err)
	}
	return *c
}

// The same batch gives the same bits with 1 worker or many, frame by frame
// equal to processing each frame alone.
func TestBatchDeterministicAcrossWorkers(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var frames []Frame
	for i, s := range [][2]int{{320, 240}, {240, 320}, {224, 224}, {100, 400}, {641, 359}, {180, 180}, {1000, 230}} {
		f := randomFrame(rng, s[0], s[1])
		if i == 4 { // a padded row stride
			padded := make([]byte, (3*s[0]+13)*s[1])
			for y := 0; y < s[1]; y++ {
				copy(padded[y*(3*s[0]+13):], f.Pix[3*s[0]*y:3*s[0]*(y+1)])
			}
			f = Frame{Pix: padded, Width: s[0], Height: s[1], Stride: 3*s[0] + 13}
		}
		frames = append(frames, f)
	}
	var outs [][]float32
	for _, workers := range []int{1, 3, 8} {
		p, err := New(clipConfig(t), Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float32, len(frames)*p.FrameLen())
		if err := p.Batch(context.Background(), frames, out); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	for i := 1; i < len(outs); i++ {
		if !slices.Equal(outs[0], outs[i]) {
			t.Errorf("output with worker setting %d differs from one worker", i)
		}
	}
	p, _ := New(clipConfig(t), Options{Workers: 1})
	for i, f := range frames {
		one := make([]float32, p.FrameLen())
		p.Batch(context.Background(), []Frame{f}, one)
		if !slices.Equal(one, outs[0][i*p.FrameLen():(i+1)*p.FrameLen()]) {
			t.Errorf("frame %d alone differs from frame %d in the batch", i, i)
		}
	}
}

// Without a resize, the crop is a window of the frame: every output value is
// the normalised level of the pixel floor((W-cw)/2) and floor((H-ch)/2) away,
// and pixels outside the frame are the level of 0.
func TestCropGeometry(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tt := range []struct{ w, h, cw, ch int }{
		{10, 8, 4, 4}, {11, 9, 4, 5}, {5, 5, 9, 8}, {6, 20, 10, 4},
	} {
		t.Run(fmt.Sprintf("%dx%d to %dx%d", tt.w, tt.h, tt.cw, tt.ch), func(t *testing.T) {
			f := randomFrame(rng, tt.w, tt.h)
			cfg := Config{Type: "test", DoCenterCrop: true, CropWidth: tt.cw, CropHeight: tt.ch,
				DoRescale: true, RescaleFactor: 1.0 / 255, DoNormalize: true, Mean: [3]float64{0.1, 0.2, 0.3}, Std: [3]float64{2, 3, 4}}
			p, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float32, p.FrameLen())
			if err := p.Batch(context.Background(), []Frame{f}, out); err != nil {
				t.Fatal(err)
			}
			ox, oy := floorDiv2(tt.w-tt.cw), floorDiv2(tt.h-tt.ch)
			for c := 0; c < 3; c++ {
				for y := 0; y < tt.ch; y++ {
					for x := 0; x < tt.cw; x++ {
						sx, sy := x+ox, y+oy
						level := byte(0)
						if sx >= 0 && sx < tt.w && sy >= 0 && sy < tt.h {
							level = f.Pix[3*(sy*tt.w+sx)+c]
						}
						want := (float32(float64(level)/255) - float32(cfg.Mean[c])) / float32(cfg.Std[c])
						if got := out[(c*tt.ch+y)*tt.cw+x]; got != want {
							t.Fatalf("channel %d (%d,%d) = %v, want %v (source level %d)", c, x, y, got, want, level)
						}
					}
				}
			}
		})
	}
}

func TestResizedSize(t *testing.T) {
	t.Parallel()
	p, _ := New(clipConfig(t), Options{})
	for _, tt := range []struct{ w, h, rw, rh int }{
		{640, 360, 398, 224}, // int(224*640/360) = int(398.22)
		{360, 640, 224, 398},
		{1920, 1080, 398, 224},
		{224, 224, 224, 224},
		{300, 299, 224, 224}, // int(224*300/299) = int(224.75)
	} {
		if rw, rh := p.resizedSize(tt.w, tt.h); rw != tt.rw || rh != tt.rh {
			t.Errorf("resizedSize(%d, %d) = %d, %d, want %d, %d", tt.w, tt.h, rw, rh, tt.rw, tt.rh)
		}
	}
}

func TestBatchErrors(t *testing.T) {
	t.Parallel()
	p, _ := New(clipConfig(t), Options{})
	good := Frame{Pix: make([]byte, 3*10*10), Width: 10, Height: 10}
	dst := make([]float32, 2*p.FrameLen())
	tests := []struct {
		name   string
		frames []Frame
		dst    []float32
		want   string
	}{
		{"short pixels", []Frame{good, {Pix: make([]byte, 299), Width: 10, Height: 10}}, dst, "frame 1: 299 bytes of pixels, 10x10 RGB needs 300"},
		{"zero size", []Frame{{Width: 0, Height: 5}}, dst, "frame 0: size 0x5"},
		{"stride under a row", []Frame{{Pix: make([]byte, 300), Width: 10, Height: 10, Stride: 29}}, dst, "frame 0: size 10x10, stride 29"},
		{"small output", []Frame{good, good}, dst[:p.FrameLen()], "output holds"},
	}
	for _, tt := range tests {
		if err := p.Batch(context.Background(), tt.frames, tt.dst); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Batch(ctx, []Frame{good, good}, dst); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled batch: %v", err)
	}
}

func BenchmarkBatch(b *testing.B) {
	siglip, err := ReadConfig("testdata/siglip-base-patch16-224.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		cfg  Config
		w, h int
	}{
		{"clip224/640x360", clipConfig(b), 640, 360},
		{"clip224/1920x1080", clipConfig(b), 1920, 1080},
		{"siglip224/640x360", *siglip, 640, 360},
		{"siglip224/1920x1080", *siglip, 1920, 1080},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const batch = 32
			p, err := New(bc.cfg, Options{})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			frames := make([]Frame, batch)
			for i := range frames {
				frames[i] = randomFrame(rng, bc.w, bc.h)
			}
			dst := make([]float32, batch*p.FrameLen())
			b.SetBytes(int64(batch * 3 * bc.w * bc.h))
			for b.Loop() {
				if err := p.Batch(context.Background(), frames, dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}
