package decode

import (
	"os"
	"strings"
	"testing"

	"github.com/asticode/go-astiav"
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
