package decode

import (
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/asticode/go-astiav"

	"github.com/vidscreen/vidscreen/decode/nv12"
)

// fakeCUDA answers openGPU's calls in turn with errs (nil: a device) and
// records the options each call asked for.
type fakeCUDA struct {
	errs     []error
	calls    []map[string]string
	readyErr error
	readied  bool
}

// ready stands in for readyPrimary, which must come before any create.
func (f *fakeCUDA) ready(index int) error {
	if index != 3 || len(f.calls) != 0 {
		return errors.New("readied late or for the wrong device")
	}
	f.readied = true
	return f.readyErr
}

func (f *fakeCUDA) create(device string, opts map[string]string) (*astiav.HardwareDeviceContext, error) {
	if device != "3" {
		return nil, errors.New("wrong device " + device)
	}
	f.calls = append(f.calls, maps.Clone(opts))
	err := f.errs[len(f.calls)-1]
	if err != nil {
		return nil, err
	}
	// A wrapper with no AVBufferRef: Close's av_buffer_unref skips it.
	return &astiav.HardwareDeviceContext{}, nil
}

// TestOpenGPUContexts follows openGPU's choice of CUDA context: the
// primary context asked for first with primary_ctx=1; where hwcontext_cuda
// refuses it (as it does when the kernels or ONNX Runtime made it active
// first), NewGPU's decoders still open on a context of FFmpeg's own and
// SharedErr says why, while NewSharedGPU's refuse.
func TestOpenGPUContexts(t *testing.T) {
	refused := errors.New("Operation not supported") // hwcontext_cuda's ENOTSUP
	noDriver := errors.New("Operation not permitted")
	primary := map[string]string{"primary_ctx": "1"}
	for _, tc := range []struct {
		name      string
		ownCtx    bool
		errs      []error
		calls     []map[string]string
		err, why  string
		sharedNil bool
		readyErr  error
	}{
		{"primary granted", true, []error{nil}, []map[string]string{primary}, "", "", true, nil},
		{"primary granted though readying failed", true, []error{nil}, []map[string]string{primary}, "", "", true, noDriver},
		{"primary refused, own context", true, []error{refused, nil}, []map[string]string{primary, nil}, "", "primary context was refused (Operation not supported", false, nil},
		{"readying failed, refused, own context", true, []error{refused, nil}, []map[string]string{primary, nil}, "", "readying its flags failed: Operation not permitted", false, noDriver},
		{"no device either way", true, []error{noDriver, noDriver}, []map[string]string{primary, nil}, "CUDA device 3: Operation not permitted (is the NVIDIA driver installed", "", true, nil},
		{"shared only, refused", false, []error{refused}, []map[string]string{primary}, "CUDA device 3 (primary context): Operation not supported", "", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeCUDA{errs: tc.errs, readyErr: tc.readyErr}
			g := openGPU(3, f.create, f.ready, tc.ownCtx)
			defer g.Close()
			if !f.readied {
				t.Fatal("the primary context was not readied before FFmpeg was asked for it")
			}
			if len(f.calls) != len(tc.calls) {
				t.Fatalf("%d calls %v; want %v", len(f.calls), f.calls, tc.calls)
			}
			for i := range f.calls {
				if !maps.Equal(f.calls[i], tc.calls[i]) {
					t.Fatalf("call %d with options %v; want %v", i, f.calls[i], tc.calls[i])
				}
			}
			if tc.err == "" && g.Err() != nil || tc.err != "" && (g.Err() == nil || !strings.Contains(g.Err().Error(), tc.err)) {
				t.Fatalf("Err %v; want %q", g.Err(), tc.err)
			}
			if tc.sharedNil != (g.SharedErr() == nil) || !tc.sharedNil && (!strings.Contains(g.SharedErr().Error(), tc.why) || !errors.Is(g.SharedErr(), refused)) {
				t.Fatalf("SharedErr %v; want nil %v, saying %q", g.SharedErr(), tc.sharedNil, tc.why)
			}
			if hw := (&hwDecoder{shared: g.shared}); tc.sharedNil != (hw.shared == nil) {
				t.Fatal("the decoder does not carry its GPU's context")
			}
		})
	}
}

// TestCUDADictIsPrimaryCtx: the dictionary FFmpeg reads holds exactly
// primary_ctx=1, the string ffmpeg's -init_hw_device cuda:0,primary_ctx=1
// gives hwcontext_cuda.
func TestCUDADictIsPrimaryCtx(t *testing.T) {
	d, err := cudaDict(primaryCtxOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	if got := strings.TrimRight(string(d.Pack()), "\x00"); got != "primary_ctx\x001" {
		t.Fatalf("packed dictionary %q; want primary_ctx=1 alone", got)
	}
	if e := d.Get("primary_ctx", nil, 0); e == nil || e.Value() != "1" {
		t.Fatalf("primary_ctx entry %v", e)
	}
}

// TestNewGPUHere: with the real FFmpeg, NewGPU on a machine without a
// GPU tries both contexts and says the driver's error; with one
// (VIDSCREEN_GPU_CHECK) it must open on the primary context, nothing else
// holding it yet.
func TestNewGPUHere(t *testing.T) {
	g := NewGPU(0)
	defer g.Close()
	if os.Getenv("VIDSCREEN_GPU_CHECK") != "" {
		if g.Err() != nil || g.SharedErr() != nil {
			t.Fatalf("Err %v, SharedErr %v; want the primary context", g.Err(), g.SharedErr())
		}
		return
	}
	if g.Err() == nil {
		t.Skip("CUDA device 0 opened here; nothing to check about the failure")
	}
	if !strings.Contains(g.Err().Error(), "NVIDIA driver") || g.SharedErr() != nil {
		t.Fatalf("Err %v, SharedErr %v; want the driver's error alone", g.Err(), g.SharedErr())
	}
}

// TestFramesOnDeviceRefusesOwnContext: a decoder on NVDEC whose GPU got a
// context of FFmpeg's own hands no picture over, saying why, before any
// decoding, since the kernels could not read its surfaces.
func TestFramesOnDeviceRefusesOwnContext(t *testing.T) {
	why := errors.New("the primary context was refused")
	d := &Decoder{src: &source{path: "v.mp4"}, hw: &hwDecoder{shared: why}}
	err := d.FramesOnDevice(t.Context(), []time.Duration{0}, func(int, nv12.Frame) error {
		t.Fatal("a picture was handed over")
		return nil
	})
	if !errors.Is(err, ErrNotOnDevice) || !errors.Is(err, why) || !strings.Contains(err.Error(), "v.mp4") {
		t.Fatalf("error %v; want ErrNotOnDevice with the context's reason", err)
	}
}
