package models

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
)

// sameBits fails unless got and want hold the same float32 bit patterns.
func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: value %d is %v (%#x), the Session path gives %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestBoundTowerMatchesSession feeds the CLIP image tower the same images
// through Session.Run (onnxruntime_go) and through the shim's IoBinding
// over the caller's Go buffer: the embeddings must be identical bit for
// bit, including batches split by MaxBatch.
func TestBoundTowerMatchesSession(t *testing.T) {
	m := openImageText(t)
	rt, _ := tinyModels(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		n        int
		maxBatch int
	}{
		{"one image", 1, 4},
		{"one full run", 4, 4},
		{"three runs, last short", 9, 4},
		{"runs of one", 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.MaxBatch = tc.maxBatch
			tower, err := m.OpenBoundTower(rt, gpu.CPUDevice())
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := tower.Close(); err != nil {
					t.Error(err)
				}
			}()
			imgs := randomImages(uint64(tc.n), tc.n, 3, 32)
			want, err := m.EmbedImages(ctx, imgs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tower.EmbedHost(ctx, imgs)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("%d embeddings for %d images", len(got), tc.n)
			}
			for i := range got {
				sameBits(t, "image "+itoa(i), got[i], want[i])
			}
		})
	}
}

// TestBoundSessionRawOutput checks the shim layer without the tower: the
// raw image_embeds written into a bound Go buffer equal Session.Run's
// output tensor, and a binding can be reused for a second run.
func TestBoundSessionRawOutput(t *testing.T) {
	m := openImageText(t)
	rt, _ := tinyModels(t)
	ctx := context.Background()
	s, err := rt.NewBoundSession(m.vision.Path(), gpu.CPUDevice(), FixedShapes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.NewBinding()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for run, n := range []int{2, 3} {
		imgs := randomImages(uint64(10+run), n, 3, 32)
		in := inputSet{}
		v, err := floatTensor(imgs.Data, int64(n), 3, 32, 32)
		if err != nil {
			t.Fatal(err)
		}
		in["pixel_values"] = v
		outs, err := m.vision.Run(ctx, in)
		in.destroy()
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := floats(outs, "image_embeds")
		if err != nil {
			t.Fatal(err)
		}
		want = append([]float32(nil), want...)
		destroyMap(outs)

		got := make([]float32, n*m.Dim())
		for i := range got {
			got[i] = float32(math.NaN()) // the run must overwrite every value
		}
		it, err := s.HostTensor(imgs.Data, int64(n), 3, 32, 32)
		if err != nil {
			t.Fatal(err)
		}
		ot, err := s.HostTensor(got, int64(n), int64(m.Dim()))
		if err != nil {
			t.Fatal(err)
		}
		b.Clear()
		if err := b.BindInput("pixel_values", it); err != nil {
			t.Fatal(err)
		}
		if err := b.BindOutput("image_embeds", ot); err != nil {
			t.Fatal(err)
		}
		if err := b.Run(ctx); err != nil {
			t.Fatal(err)
		}
		it.Close()
		ot.Close()
		sameBits(t, "run "+itoa(run), got, want)
	}
}

// TestBoundSessionErrors checks that misuse is refused with a message
// that says what was wrong, ONNX Runtime's own message included where it
// is the one refusing.
func TestBoundSessionErrors(t *testing.T) {
	m := openImageText(t)
	rt, _ := tinyModels(t)
	s, err := rt.NewBoundSession(m.vision.Path(), gpu.CPUDevice(), FixedShapes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	good := make([]float32, 2*3*32*32)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		do   func(b *Binding) error
		want string
	}{
		{"short host buffer", func(b *Binding) error {
			_, err := s.HostTensor(good[:10], 2, 3, 32, 32)
			return err
		}, "needs 6144 values, given 10"},
		{"device tensor on the CPU", func(b *Binding) error {
			_, err := s.DeviceTensor(0x1000, 1<<20, 1, 3, 32, 32)
			return err
		}, "needs a session on a CUDA device"},
		{"unknown input", func(b *Binding) error {
			it, err := s.HostTensor(good, 2, 3, 32, 32)
			if err != nil {
				return err
			}
			defer it.Close()
			return b.BindInput("pixels", it)
		}, "no input pixels"},
		{"closed tensor", func(b *Binding) error {
			it, err := s.HostTensor(good, 2, 3, 32, 32)
			if err != nil {
				return err
			}
			it.Close()
			return b.BindInput("pixel_values", it)
		}, "tensor closed"},
		{"wrong image size, refused by ONNX Runtime", func(b *Binding) error {
			it, err := s.HostTensor(good[:2*3*16*16], 2, 3, 16, 16)
			if err != nil {
				return err
			}
			defer it.Close()
			if err := b.BindInput("pixel_values", it); err != nil {
				return err
			}
			return b.Run(context.Background())
		}, "ONNX Runtime error"},
		{"cancelled context", func(b *Binding) error {
			return b.Run(cancelled)
		}, context.Canceled.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := s.NewBinding()
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			err = tc.do(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// TestBoundORTErrorCarriesStatus checks that a failed OrtStatus comes back
// as an *ORTError with its code and ONNX Runtime's message.
func TestBoundORTErrorCarriesStatus(t *testing.T) {
	rt, _ := tinyModels(t)
	_, err := rt.NewBoundSession(filepath.Join(t.TempDir(), "absent.onnx"), gpu.CPUDevice(), FixedShapes)
	if err == nil {
		t.Fatal("a missing model loaded")
	}
	// sessionInfo (onnxruntime_go) reads the file first; load a file that
	// exists but is not a model through the shim itself.
	api, err := openORTAPI(rt.Library())
	if err != nil {
		t.Fatal(err)
	}
	defer api.close()
	env, err := api.newEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer api.releaseEnv(env)
	so, err := api.newSessionOptions(sessionConfig{threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer api.releaseSessionOptions(so)
	_, err = api.newSession(env, rt.Library(), so) // a shared library, not a model
	var oe *ORTError
	if !errors.As(err, &oe) || oe.Code == 0 || oe.Msg == "" {
		t.Fatalf("error %v; want an *ORTError with a code and a message", err)
	}
}

// TestBoundSessionCUDAWithoutProvider: where the CUDA provider's library
// is absent (this machine, and any CPU-only install), a bound CUDA session
// is refused with the runtime's explanation, and nothing is left open.
func TestBoundSessionCUDAWithoutProvider(t *testing.T) {
	m := openImageText(t)
	rt, _ := tinyModels(t)
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(rt.Library()), "libonnxruntime_providers_cuda.so")); len(matches) > 0 {
		t.Skip("the CUDA provider is installed here; TestBoundTowerCUDA covers it")
	}
	tower, err := m.OpenBoundTower(rt, gpu.Device{Kind: gpu.CUDA})
	if err == nil {
		tower.Close()
		t.Fatal("a CUDA tower opened without the CUDA provider")
	}
	if !strings.Contains(err.Error(), "libonnxruntime_providers_cuda.so is missing") {
		t.Fatalf("error %v; want it to name the missing provider library", err)
	}
}
