package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// The fakes stand for the GPU in the frame path's logic: a picture's Luma
// (or an RGB frame's first byte) is its identity, a Prep's slots hold
// identities, Run copies the first n into its "tensor", and the tower
// returns each row's identity as its embedding, refusing a tensor whose
// stream was not synchronised.

type fakePrepDevice struct {
	preps  []*fakePrep
	closed bool
}

func (d *fakePrepDevice) NewPrep(plan *imageprep.Plan, batch int) (gpuprep.Prep, error) {
	p := &fakePrep{plan: plan, slots: make([]uintptr, batch), id: len(d.preps) + 1}
	d.preps = append(d.preps, p)
	return p, nil
}

func (d *fakePrepDevice) Close() error { d.closed = true; return nil }

type fakePrep struct {
	plan     *imageprep.Plan
	id       int
	slots    []uintptr
	tensor   []uintptr
	runs     []int
	unsynced bool
	closed   bool
}

func (p *fakePrep) Load(frames []imageprep.Frame) error {
	if len(frames) > len(p.slots) {
		return fmt.Errorf("%d frames for %d slots", len(frames), len(p.slots))
	}
	for i, f := range frames {
		if f.Width != p.plan.SrcW || f.Height != p.plan.SrcH {
			return fmt.Errorf("frame of %dx%d in a %dx%d prep", f.Width, f.Height, p.plan.SrcW, p.plan.SrcH)
		}
		p.slots[i] = uintptr(f.Pix[0])
	}
	p.unsynced = true
	return nil
}

func (p *fakePrep) LoadNV12(slot int, frames []nv12.Frame) error {
	if slot < 0 || slot+len(frames) > len(p.slots) {
		return fmt.Errorf("%d pictures from slot %d for %d slots", len(frames), slot, len(p.slots))
	}
	for i, f := range frames {
		if f.Width != p.plan.SrcW || f.Height != p.plan.SrcH {
			return fmt.Errorf("picture of %dx%d in a %dx%d prep", f.Width, f.Height, p.plan.SrcW, p.plan.SrcH)
		}
		p.slots[slot+i] = f.Luma
	}
	p.unsynced = true
	return nil
}

func (p *fakePrep) Run(_ context.Context, n int) error {
	p.tensor = slices.Clone(p.slots[:n])
	p.runs = append(p.runs, n)
	p.unsynced = true
	return nil
}

func (p *fakePrep) Sync() error { p.unsynced = false; return nil }

func (p *fakePrep) Output([]float32, int) error {
	return errors.New("the device path must not copy the tensor back")
}

func (p *fakePrep) DeviceOutput() (uintptr, int64) { return uintptr(p.id), int64(len(p.slots)) }

func (p *fakePrep) Close() error { p.closed = true; return nil }

type fakeTower struct {
	d     *fakePrepDevice
	max   int
	calls []int
}

func (t *fakeTower) MaxBatch() int { return t.max }

func (t *fakeTower) EmbedDevice(_ context.Context, ptr uintptr, _ int64, n int) ([][]float32, error) {
	p := t.d.preps[ptr-1]
	if p.unsynced {
		return nil, errors.New("the tower read a tensor before its stream was synchronised")
	}
	if len(p.tensor) != n {
		return nil, fmt.Errorf("embed %d rows of a %d-row tensor", n, len(p.tensor))
	}
	t.calls = append(t.calls, n)
	out := make([][]float32, n)
	for k, id := range p.tensor {
		out[k] = []float32{float32(id)}
	}
	return out, nil
}

func (t *fakeTower) Close() error { return nil }

func fakeFramePath(t *testing.T, batch int) (*framePath, *fakePrepDevice, *fakeTower) {
	cfg, err := imageprep.ParseConfig([]byte(`{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 8}, "crop_size": {"height": 8, "width": 8}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	plans, err := imageprep.New(*cfg, imageprep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := &fakePrepDevice{}
	tower := &fakeTower{d: d, max: batch}
	return &framePath{plans: plans, pd: d, tower: tower}, d, tower
}

// TestFramePathEmbedDecoded runs the device path's batching on the host:
// pictures handed over one at a time (in any index order) are converted
// into consecutive slots and synchronised before the decoder gets the
// surface back, batches run when full, when the size changes and at the
// end, and each embedding lands at its picture's index.
func TestFramePathEmbedDecoded(t *testing.T) {
	t.Parallel()
	type pic struct {
		i    int
		w, h int
	}
	seq := func(n, w, h int) []pic {
		ps := make([]pic, n)
		for i := range ps {
			ps[i] = pic{i, w, h}
		}
		return ps
	}
	for _, tc := range []struct {
		name  string
		batch int
		n     int
		pics  []pic
		runs  []int // tower calls
		preps int   // Preps made
		want  string
	}{
		{"three batches of one size", 4, 10, seq(10, 64, 48), []int{4, 4, 2}, 1, ""},
		{"a size change flushes", 4, 5, []pic{{0, 64, 48}, {1, 64, 48}, {2, 32, 32}, {3, 32, 32}, {4, 64, 48}}, []int{2, 2, 1}, 3, ""},
		{"time order, not index order", 2, 3, []pic{{1, 64, 48}, {2, 64, 48}, {0, 64, 48}}, []int{2, 1}, 1, ""},
		{"an index twice", 4, 3, []pic{{0, 64, 48}, {0, 64, 48}}, nil, 1, "want each of 0..2 once"},
		{"an index out of range", 4, 3, []pic{{3, 64, 48}}, nil, 0, "want each of 0..2 once"},
		{"a picture missing", 4, 3, []pic{{0, 64, 48}, {2, 64, 48}}, []int{2}, 1, "picture 1 of 3 was not handed over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, d, tower := fakeFramePath(t, tc.batch)
			got, err := p.embedDecoded(context.Background(), tc.n, func(yield func(int, nv12.Frame) error) error {
				for _, pc := range tc.pics {
					id := uintptr(100 + pc.i)
					if err := yield(pc.i, nv12.Frame{Luma: id, Chroma: id, Width: pc.w, Height: pc.h}); err != nil {
						return err
					}
					if p.prep.(*fakePrep).unsynced {
						t.Fatalf("picture %d: its surface went back to the decoder before the conversion finished", pc.i)
					}
				}
				return nil
			})
			if !slices.Equal(tower.calls, tc.runs) || len(d.preps) != tc.preps {
				t.Errorf("tower runs %v over %d Preps; want %v over %d", tower.calls, len(d.preps), tc.runs, tc.preps)
			}
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v; want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if len(v) != 1 || v[0] != float32(100+i) {
					t.Fatalf("embedding %d is %v; want picture %d's", i, v, i)
				}
			}
			for _, pr := range d.preps[:len(d.preps)-1] {
				if !pr.closed {
					t.Fatal("a Prep of an earlier size was left open")
				}
			}
			if err := p.close(); err != nil {
				t.Fatal(err)
			}
			if !d.preps[len(d.preps)-1].closed || !d.closed {
				t.Fatal("close left the Prep or the device open")
			}
		})
	}
}

// TestFramePathVisitorError: the decoder's error ends the call unchanged.
func TestFramePathVisitorError(t *testing.T) {
	t.Parallel()
	p, _, _ := fakeFramePath(t, 4)
	boom := errors.New("decoder failed")
	_, err := p.embedDecoded(context.Background(), 2, func(yield func(int, nv12.Frame) error) error {
		if err := yield(0, nv12.Frame{Luma: 1, Width: 64, Height: 48}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v; want the visitor's", err)
	}
}

// TestFramePathEmbed runs the RGB frames' path on the fakes: runs of one
// size, cut at the batch.
func TestFramePathEmbed(t *testing.T) {
	t.Parallel()
	p, d, tower := fakeFramePath(t, 4)
	var frames []imageprep.Frame
	for i := range 7 {
		w := 64
		if i >= 5 {
			w = 32
		}
		frames = append(frames, imageprep.Frame{Pix: []byte{byte(10 + i)}, Width: w, Height: 48})
	}
	got, err := p.embed(context.Background(), frames)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tower.calls, []int{4, 1, 2}) || len(d.preps) != 2 {
		t.Fatalf("tower runs %v over %d Preps; want [4 1 2] over 2", tower.calls, len(d.preps))
	}
	for i, v := range got {
		if v[0] != float32(10+i) {
			t.Fatalf("embedding %d is %v; want frame %d's", i, v, i)
		}
	}
}
