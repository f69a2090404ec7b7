//go:build cuda

package gpuprep

import (
	"context"
	"math/rand/v2"
	"testing"

	"gorgonia.org/cu"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/gpu/cudactx"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// TestGPUNV12EqualsHost puts NV12 pictures (odd sizes, padded pitches, both
// ranges) in device memory as NVDEC would, runs LoadNV12 and the two
// passes, and holds the tensor bit for bit to NV12ToRGB on the host then
// imageprep: the conversion is the same integer arithmetic on both. It
// skips when no GPU answers.
func TestGPUNV12EqualsHost(t *testing.T) {
	c := openOrSkip(t)
	dev, err := OpenGPU(c)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	p, err := imageprep.New(config(t, "clip-vit-base-patch32.json"), imageprep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(29, 3))
	for _, tc := range []struct {
		w, h, pad int
		cs        int
		full      bool
	}{{1920, 1080, 0, 1, false}, {397, 223, 64, 5, false}, {640, 360, 32, 9, true}} {
		lp, cp := tc.w+tc.pad, tc.w+tc.w%2+tc.pad
		const n = 3
		var frames []nv12.Frame
		want := make([]imageprep.Frame, n)
		for i := range n {
			luma := make([]byte, tc.h*lp)
			chroma := make([]byte, (tc.h+1)/2*cp)
			for k := range luma {
				luma[k] = byte(rng.IntN(256))
			}
			for k := range chroma {
				chroma[k] = byte(rng.IntN(256))
			}
			m := nv12.MatrixFor(tc.cs, tc.full)
			rgb := make([]byte, 3*tc.w*tc.h)
			if err := NV12ToRGB(rgb, luma, chroma, lp, cp, tc.w, tc.h, m); err != nil {
				t.Fatal(err)
			}
			want[i] = imageprep.Frame{Pix: rgb, Width: tc.w, Height: tc.h}
			dl, dc := upload(t, c, luma), upload(t, c, chroma)
			frames = append(frames, nv12.Frame{Luma: uintptr(dl), Chroma: uintptr(dc), LumaPitch: lp, ChromaPitch: cp, Width: tc.w, Height: tc.h, Matrix: m})
		}
		plan, err := p.Plan(tc.w, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		prep, err := dev.NewPrep(plan, n)
		if err != nil {
			t.Fatal(err)
		}
		dp := prep.(DevicePrep)
		// The first picture alone, then the rest behind it, as a decoder
		// that hands pictures over one at a time does.
		if err := dp.LoadNV12(0, frames[:1]); err != nil {
			t.Fatal(err)
		}
		if err := dp.LoadNV12(1, frames[1:]); err != nil {
			t.Fatal(err)
		}
		if err := dp.Run(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, n*p.FrameLen())
		if err := dp.Output(got, n); err != nil {
			t.Fatal(err)
		}
		ref := make([]float32, len(got))
		if err := p.Batch(context.Background(), want, ref); err != nil {
			t.Fatal(err)
		}
		if at, d := sameBits(got, ref); at >= 0 {
			t.Fatalf("%dx%d: frame %d value %d = %v, host %v (max abs diff %g)", tc.w, tc.h, at/p.FrameLen(), at%p.FrameLen(), got[at], ref[at], d)
		}
		if err := prep.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// upload copies data into a new device buffer with UploadBytes (the
// device check's way of putting pictures where NVDEC would) that the
// test's cleanup frees.
func upload(t *testing.T, c *cudactx.Context, data []byte) cu.DevicePtr {
	t.Helper()
	ptr, free, err := c.UploadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := free(); err != nil {
			t.Error(err)
		}
		if err := free(); err != nil {
			t.Errorf("a second free: %v", err)
		}
	})
	return cu.DevicePtr(ptr)
}
