//go:build cuda

package models

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
)

// TestDeviceFramesMatchCPU runs frames of two sizes through the GPU frame
// path (upload, preprocessing kernel, tower on the CUDA provider reading
// the kernel's output in place) and through the CPU path, and compares the
// embeddings. It runs only where VIDSCREEN_GPU_CHECK names a device (as
// bench/models_gpu_check.sh sets it) and the path must then open: a
// fallback is a failure there.
func TestDeviceFramesMatchCPU(t *testing.T) {
	dev := os.Getenv("VIDSCREEN_GPU_CHECK")
	if dev == "" {
		t.Skip("set VIDSCREEN_GPU_CHECK=cuda:0 on a GPU machine with the CUDA provider (make setup-cuda)")
	}
	spec, err := gpu.ParseSpec(dev)
	if err != nil || !spec.CUDA {
		t.Fatalf("VIDSCREEN_GPU_CHECK=%q: want cuda:N (%v)", dev, err)
	}
	_, dir := tinyModels(t)
	rt, err := NewRuntime(RuntimeOptions{Threads: 2, Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	man, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rt.OpenImageText(man, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.MaxBatch = 8
	d := m.OpenDeviceFrames(rt, gpu.Device{Kind: gpu.CUDA, Index: spec.Ordinals()[0]})
	defer d.Close()
	if !d.OnDevice() {
		t.Fatalf("the GPU frame path did not open: %v", d.Fallback())
	}
	ctx := context.Background()
	frames := append(randomFrames(5, 11, 64, 48), randomFrames(6, 5, 320, 240)...)
	want, err := m.EmbedFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := d.EmbedFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames through the GPU frame path in %v", len(frames), time.Since(start))
	for i := range want {
		// The kernel's tensor is imageprep's bit for bit; the tower on
		// CUDA may use TF32 products (about 1e-3 relative).
		closeTo(t, "frame "+itoa(i), got[i], want[i], 2e-3)
	}
}
