package decode

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asticode/go-astiav"

	"github.com/vidscreen/vidscreen/decode/nv12"
)

// TestDeviceNV12RefusesHostFrames: a frame that FFmpeg decoded on the CPU
// has no device planes to describe, whatever its format.
func TestDeviceNV12RefusesHostFrames(t *testing.T) {
	for _, pf := range []astiav.PixelFormat{astiav.PixelFormatNv12, astiav.PixelFormatYuv420P} {
		t.Run(pf.String(), func(t *testing.T) {
			f := astiav.AllocFrame()
			defer f.Free()
			f.SetWidth(64)
			f.SetHeight(36)
			f.SetPixelFormat(pf)
			if err := f.AllocBuffer(0); err != nil {
				t.Fatal(err)
			}
			if _, err := DeviceNV12(f); err == nil || !strings.Contains(err.Error(), "not on the GPU") {
				t.Fatalf("error %v; want a refusal naming the frame as not on the GPU", err)
			}
		})
	}
}

// TestNewSharedGPU opens CUDA device 0 on its primary context where
// VIDSCREEN_GPU_CHECK asks for it; elsewhere a GPU that cannot open must
// say why, as NewGPU's does.
func TestNewSharedGPU(t *testing.T) {
	g := NewSharedGPU(0)
	defer g.Close()
	if os.Getenv("VIDSCREEN_GPU_CHECK") != "" {
		if g.Err() != nil {
			t.Fatal(g.Err())
		}
		return
	}
	if g.Err() == nil {
		t.Skip("CUDA device 0 opened here; nothing to check about the failure")
	}
	if !strings.Contains(g.Err().Error(), "primary context") {
		t.Fatalf("error %v; want it to say which device context failed", g.Err())
	}
}

// TestFramesOnDeviceRefuses: a decoder on the CPU (asked for, or fallen
// back from NVDEC here, where no GPU answers) hands no picture over and
// says ErrNotOnDevice with the reason, so the caller uses Frames. On a GPU
// machine (VIDSCREEN_GPU_CHECK) the cuda decoder must instead hand over
// NV12 surfaces of the coded size.
func TestFramesOnDeviceRefuses(t *testing.T) {
	path := testVideoPath(t, "h264_bt709.mp4")
	times := []time.Duration{2 * time.Second, 0, time.Second}
	for _, tc := range []struct {
		name, hw, want string
	}{
		{"cpu", "", "the decoder runs on the CPU"},
		{"cuda", "cuda", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Open(context.Background(), path, Options{Threads: 1, HWAccel: tc.hw})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var seen []int
			err = d.FramesOnDevice(context.Background(), times, func(i int, f nv12.Frame) error {
				if f.Width != 320 || f.Height != 240 || f.Luma == 0 || f.Matrix != nv12.MatrixFor(1, false) {
					t.Errorf("picture %d: %+v; want a 320x240 BT.709 limited-range NV12 surface", i, f)
				}
				seen = append(seen, i)
				return nil
			})
			if tc.hw == "cuda" && os.Getenv("VIDSCREEN_GPU_CHECK") != "" {
				if err != nil || !slices.Equal(seen, []int{1, 2, 0}) {
					t.Fatalf("on the GPU: pictures %v, error %v; want 1, 2, 0 in time order", seen, err)
				}
				return
			}
			if !errors.Is(err, ErrNotOnDevice) || len(seen) != 0 {
				t.Fatalf("error %v after %d pictures; want ErrNotOnDevice before any", err, len(seen))
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want it to say %q", err, tc.want)
			}
			if tc.hw == "cuda" && !strings.Contains(err.Error(), d.Fallback()) {
				t.Fatalf("error %v; want the decoder's fallback reason %q", err, d.Fallback())
			}
		})
	}
}
