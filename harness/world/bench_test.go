package world

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkRenderAndEncode measures the world's hot stage, rendering scenes
// and encoding them to H.264, in frames per second.
func BenchmarkRenderAndEncode(b *testing.B) {
	w, err := Plan(Options{Seed: 1, Videos: 9, MinDuration: 4, MaxDuration: 4, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	frames := 0
	b.ResetTimer()
	for b.Loop() {
		for _, v := range w.videos {
			if err := writeVideo(context.Background(), filepath.Join(dir, v.id+".mp4"), &v.scene, w.Options); err != nil {
				b.Fatal(err)
			}
			frames += int(v.duration * float64(w.Options.FPS))
		}
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}
