package models

import (
	"context"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
)

// BenchmarkImageTowerFeeds compares the tower fed through onnxruntime_go's
// Session.Run (a tensor over the batch, outputs copied into Go) with the
// shim's IoBinding over the same Go buffer (BoundTower.EmbedHost), on the
// tiny CLIP tower at 32 images a run. On a GPU the bound path's point is
// the device tensor; here it measures what the binding costs or saves
// (on a quiet machine: on a shared one the two are within its noise).
func BenchmarkImageTowerFeeds(b *testing.B) {
	rt, dir := tinyModels(b)
	man, err := LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	m, err := rt.OpenImageText(man, gpu.CPUDevice())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	m.MaxBatch = 32
	tower, err := m.OpenBoundTower(rt, gpu.CPUDevice())
	if err != nil {
		b.Fatal(err)
	}
	defer tower.Close()
	imgs := randomImages(1, 32, 3, 32)
	ctx := context.Background()
	for _, feed := range []struct {
		name string
		run  func() error
	}{
		{"session", func() error { _, err := m.EmbedImages(ctx, imgs); return err }},
		{"bound", func() error { _, err := tower.EmbedHost(ctx, imgs); return err }},
	} {
		b.Run(feed.name, func(b *testing.B) {
			for b.Loop() {
				if err := feed.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*imgs.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}
