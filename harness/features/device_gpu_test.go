//go:build cuda

package features

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// TestDeviceFramePathNearHost runs the feature stage over real videos on
// both frame paths of one GPU: the host path (NVDEC, scale_cuda and the
// download, imageprep on the CPU, the tower's Session) and the device path
// (NVDEC's pictures preprocessed on the device, the tower reading them in
// place). The resize differs by design (once from the coded picture on the
// device, twice on the host), so the rows are compared by cosine, not bits;
// the worst is logged. It runs only where VIDSCREEN_GPU_CHECK names a device
// (bench/models_gpu_check.sh sets it), and the device path must then open.
func TestDeviceFramePathNearHost(t *testing.T) {
	env := os.Getenv("VIDSCREEN_GPU_CHECK")
	if env == "" {
		t.Skip("set VIDSCREEN_GPU_CHECK=cuda:0 on a GPU machine with the CUDA provider (make setup-cuda)")
	}
	spec, err := gpu.ParseSpec(env)
	if err != nil || !spec.CUDA {
		t.Fatalf("VIDSCREEN_GPU_CHECK=%q: want cuda:N (%v)", env, err)
	}
	dev := gpu.Device{Kind: gpu.CUDA, Index: spec.Ordinals()[0]}
	openTiny(t)
	man, err := models.LoadManifest(tiny.dir)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 2, Device: spec, Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, dev)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	df := it.OpenDeviceFrames(rt, dev)
	defer df.Close()
	if !df.OnDevice() {
		t.Fatalf("the GPU frame path did not open on %s: %v", dev.ID(), df.Fallback())
	}
	g := decode.NewSharedGPU(dev.Index)
	defer g.Close()
	if g.Err() != nil {
		t.Fatalf("NVDEC on %s: %v", dev.ID(), g.Err())
	}
	root := t.TempDir()
	src := sharedVideos(t)
	copyVideo(t, src, root, "big_buck_bunny_0_30_h264_640.mp4", "bbb.mp4")
	copyVideo(t, src, root, "smpte-2997.mp4", "bars.mp4")
	items := []*harness.Item{
		{ID: "bbb", Benchmark: "B", Video: "bbb", VideoPath: "bbb.mp4", Question: "q", Options: []string{"a", "b"}},
		{ID: "bars", Benchmark: "B", Video: "bars", VideoPath: "bars.mp4", Question: "q", Options: []string{"a", "b"}},
	}
	opts := func(device bool) Options {
		o := Options{
			Root: root, CacheDir: t.TempDir(), Sets: []Set{CentreSet, UniformSet},
			Image: []ImageEncoder{it}, ImageName: "tiny-clip", Prep: tiny.prep,
			Size:     decode.Size{Short: 224},
			Decode:   decode.Pool{Workers: 1, Options: decode.Options{HWAccel: "cuda"}, GPUs: []*decode.GPU{g}},
			MaxBatch: 16,
		}
		if device {
			o.DeviceImage, o.HostImageName, o.ImageName = []DeviceImageEncoder{NVDECTower{Frames: df}}, o.ImageName, o.ImageName+":frame_path=device"
		}
		return o
	}
	ctx := context.Background()
	host, err := Extract(ctx, items, opts(false))
	if err != nil {
		t.Fatal(err)
	}
	onDev, err := Extract(ctx, items, opts(true))
	if err != nil {
		t.Fatal(err)
	}
	st := onDev.Stats
	t.Logf("device path: %d frames on %s, %d videos refused (%s), busy %v; host path busy %v", st.FramesOnDevice, dev, st.DeviceRefused, st.DeviceRefusal, st.Busy, host.Stats.Busy)
	if st.FramesOnDevice == 0 {
		t.Fatalf("no frame took the device path: %+v", st)
	}
	for k, v := range onDev.Videos {
		hv := host.Videos[k]
		worst := 1.0
		for r := range v.Times {
			a, b := v.Embeddings.Row(r), hv.Embeddings.Row(r)
			var dot, na, nb float64
			for j := range a {
				dot += float64(a[j]) * float64(b[j])
				na += float64(a[j]) * float64(a[j])
				nb += float64(b[j]) * float64(b[j])
			}
			worst = min(worst, dot/math.Sqrt(na*nb))
		}
		t.Logf("%s: %d frames, worst cosine between the paths %.5f", v.Path, len(v.Times), worst)
		// A loose bound: the two resizes of one picture are close, but
		// how close through this small random tower is not measured yet.
		if worst < 0.95 {
			t.Errorf("%s: a frame's embeddings on the two paths are at cosine %.5f", v.Path, worst)
		}
	}
}
