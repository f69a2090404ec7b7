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

// TestExtractSpreadsWorkOverDevices runs the decoders and the image tower
// on 1, 2 and 4 emulated CPU devices (--device cpu:N: one decoder set and
// one ONNX Runtime session each, under a gpu.Pool) over eight copies of one
// short video, without and with a memory budget that holds fewer frames
// than a run would take: the embeddings are bit for bit the same at every
// device count and budget, each device embeds exactly its share, 8/N
// videos' frames, and every device's decoders take some of the videos.
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
	for _, tc := range []struct {
		n      int
		budget uint64
	}{{1, 0}, {2, 0}, {4, 0}, {4, 5 * 16 * 4 * uint64(tiny.prep.FrameLen())}} {
		n := tc.n
		spec, err := gpu.ParseSpec(fmt.Sprintf("cpu:%d", n))
		if err != nil {
			t.Fatal(err)
		}
		devs, _, err := gpu.Select(spec, gpu.Inventory{})
		if err != nil {
			t.Fatal(err)
		}
		pool, err := gpu.NewPool(devs, gpu.PoolConfig{CPUMemoryBudget: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		opt := testOptions(root, t.TempDir(), 2)
		opt.Sets, opt.Captioner, opt.Devices = []Set{UniformSet}, nil, pool
		opt.Image = nil
		opt.Decode.Sets = n
		for range devs {
			it, err := tiny.rt.OpenImageText(man, gpu.CPUDevice())
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
		decoded := 0
		for d, f := range res.Stats.DecodedByDevice {
			decoded += f
			if f == 0 {
				t.Errorf("%d devices: the decoders of device %d took no video (%v)", n, d, res.Stats.DecodedByDevice)
			}
			if got := pool.Usage()[d].Done["decode"]; got != f {
				t.Errorf("%d devices: the pool counts %d frames decoded on device %d, the stats %d", n, got, d, f)
			}
		}
		if len(res.Stats.DecodedByDevice) != n || decoded != res.Stats.FramesDecoded {
			t.Errorf("%d devices: frames decoded per device %v, %d in all", n, res.Stats.DecodedByDevice, res.Stats.FramesDecoded)
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
