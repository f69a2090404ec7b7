package imageprep

import (
	"context"
	"math/rand/v2"
	"testing"
)

// ParseConfig never panics, and what it accepts either makes a Processor
// or is refused by New with an error.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"image_processor_type": "CLIPImageProcessor"}`,
		`{"image_processor_type": "SiglipImageProcessor", "size": {"height": 3, "width": 5}, "resample": 2}`,
		`{"image_processor_type": "ViTImageProcessor", "size": 7, "image_mean": 0.1, "image_std": [1, 2, 3]}`,
		`{"image_processor_type": "CLIPImageProcessor", "crop_size": {"height": 9, "width": 1}, "size": {"shortest_edge": 4}}`,
		`{`, `[]`, `{"size": []}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data, "fuzz.json")
		if err != nil {
			return
		}
		// Keep the output small so one frame runs quickly.
		if c.Height > 64 || c.Width > 64 || c.CropHeight > 64 || c.CropWidth > 64 || c.ShortestEdge > 64 {
			return
		}
		p, err := New(*c, Options{Workers: 1})
		if err != nil {
			return
		}
		out := make([]float32, p.FrameLen())
		fr := Frame{Pix: make([]byte, 3*5*4), Width: 5, Height: 4}
		if err := p.Batch(context.Background(), []Frame{fr}, out); err != nil {
			t.Errorf("config %s: %v", data, err)
		}
	})
}

// Any resize of any frame is within floatTolerance of the float64 filter.
func FuzzResize(f *testing.F) {
	f.Add(uint64(1), uint8(17), uint8(9), uint8(5), uint8(30), uint8(3))
	f.Add(uint64(2), uint8(1), uint8(1), uint8(40), uint8(2), uint8(2))
	f.Add(uint64(3), uint8(64), uint8(33), uint8(7), uint8(7), uint8(1))
	f.Add(uint64(4), uint8(9), uint8(70), uint8(9), uint8(20), uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, w, h, ow, oh, filter uint8) {
		if w == 0 || h == 0 || ow == 0 || oh == 0 || filter < 1 || filter > 5 {
			return
		}
		fr := randomFrame(rand.New(rand.NewPCG(seed, 0)), int(w), int(h))
		r := Resample(filter)
		got := levels(t, resizeOnly(t, int(ow), int(oh), r), fr)
		want := refResize(fr.Pix, int(w), int(h), int(ow), int(oh), r)
		tol := floatTolerance(r, ow != w && oh != h)
		if d, at := maxDiff(got, want); d > tol {
			t.Errorf("%v %dx%d -> %dx%d: %d levels off at pixel %d (tolerance %d)", r, w, h, ow, oh, d, at/3, tol)
		}
	})
}
