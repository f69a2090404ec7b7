package features

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// TestExtractSpreadsWorkOverDevices runs the image tower on 1, 2 and 4
// emulated CPU devices (--device cpu:N: one ONNX Runtime session each,
// under a gpu.Pool) over eight copies of one short video: the embeddings
// are bit for bit the same at every device count, and each device embeds
// exactly its share, 8/N videos' frames.
func TestExtractSpreadsWorkOverDevices(t *testing.T) {
	openTiny(t)
	src := sharedVideos(t)
	root := t.TempDir()
	var items []*harness.Item
	for k := range 8 {
		name := fmt.Sprintf("v%d.webm", k)
		copyVideo(t, src, root, "big_buck_bunny_432_433.webm", name)
		items = append(items, &harness.Item{ID: name, Benchmark: "B", Video: name, Question: "q", Options: []string{"a", "b"}})
	}
	man, err := models.LoadManifest(tiny.dir)
	if err != nil {
		t.Fatal(err)
	}
	var first *Result
	for _, n := range []int{1, 2, 4} {
		spec, err := gpu.ParseSpec(fmt.Sprintf("cpu:%d", n))
		if err != nil {
			t.Fatal(err)
		}
		devs, _, err := gpu.Select(spec, gpu.Inventory{})
		if err != nil {
			t.Fatal(err)
		}
		pool, err := gpu.NewPool(devs, gpu.PoolConfig{})
		if err != nil {
			t.Fatal(err)
		}
		opt := testOptions(root, t.TempDir(), 2)
		opt.Sets, opt.Captioner, opt.Devices = []Set{UniformSet}, nil, pool
		opt.Image = nil
		for range devs {
			it, err := tiny.rt.OpenImageText(man, models.CPU)
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			opt.Image = append(opt.Image, it)
		}
		res, err := Extract(context.Background(), items, opt)
		if err != nil {
			t.Fatal(err)
		}
		per := len(res.Videos[0].Times)
		want := slices.Repeat([]int{8 / n * per}, n)
		if !slices.Equal(res.Stats.FramesByDevice, want) {
			t.Errorf("%d devices: frames per device %v, want %v", n, res.Stats.FramesByDevice, want)
		}
		if first == nil {
			first = res
			continue
		}
		for v, vid := range res.Videos {
			if filepath.Base(vid.Path) != filepath.Base(first.Videos[v].Path) || !slices.Equal(vid.Embeddings.Data, first.Videos[v].Embeddings.Data) {
				t.Errorf("%d devices: the embeddings of %s differ from one device's", n, vid.Path)
			}
		}
	}
}
