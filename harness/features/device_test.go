package features

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// fakeDevice is a DeviceImageEncoder whose "GPU" decodes on the CPU at
// another size than the host path (48 pixels on the short side, where the
// run decodes at 32), as the device path resizes from the coded picture:
// its embeddings differ from the host path's, so where each row came from
// shows. It refuses the videos named in refuse, as FramesOnDevice refuses
// a rotated or 10-bit one, and keeps what it returned.
type fakeDevice struct {
	refuse string
	mu     sync.Mutex
	calls  []string
	gave   map[string][][]float32
}

func (f *fakeDevice) EmbedVideo(ctx context.Context, path string, opt decode.Options, times []time.Duration) ([][]float32, error) {
	f.mu.Lock()
	f.calls = append(f.calls, filepath.Base(path))
	f.mu.Unlock()
	if filepath.Base(path) == f.refuse {
		return nil, fmt.Errorf("%w: %s: 10-bit surfaces (fake)", decode.ErrNotOnDevice, path)
	}
	dec, err := decode.Open(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	frames, err := dec.Frames(ctx, times, decode.Size{Short: 48}, nil)
	if err != nil {
		return nil, err
	}
	imgs := make([]imageprep.Frame, len(frames))
	for i, fr := range frames {
		imgs[i] = imageprep.Frame{Pix: fr.RGB, Width: fr.Width, Height: fr.Height, Stride: 3 * fr.Width}
	}
	embs, err := tiny.it.EmbedFrames(ctx, imgs)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.gave[path] = embs
	f.mu.Unlock()
	return embs, nil
}

// TestExtractDeviceFramePath runs the feature stage on the GPU frame path
// through a fake device: each video's frame sets are embedded by the
// device, row for row in time order, and nothing of them is preprocessed
// on the host; the captioner still reads host frames (the captions are the
// host path's); a video the device refuses gets the host path's
// embeddings bit for bit and is cached under the host path's name, where
// a host run finds it; the device path's entries are cached under their
// own name, which a host run never reads.
func TestExtractDeviceFramePath(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	items := testItems()
	ctx := context.Background()
	host, err := Extract(ctx, items, testOptions(root, t.TempDir(), 2))
	if err != nil {
		t.Fatal(err)
	}
	devCache := t.TempDir()
	fake := &fakeDevice{refuse: "bars.mp4", gave: map[string][][]float32{}}
	devOpt := func() Options {
		o := testOptions(root, devCache, 2)
		o.DeviceImage, o.HostImageName, o.ImageName = []DeviceImageEncoder{fake}, o.ImageName, o.ImageName+":frame_path=device"
		return o
	}
	dev, err := Extract(ctx, items, devOpt())
	if err != nil {
		t.Fatal(err)
	}
	calls := slices.Sorted(slices.Values(fake.calls))
	if !slices.Equal(calls, []string{"bars.mp4", "bbb.mp4", "short.webm"}) {
		t.Fatalf("the device was asked for %v; want each readable video once", calls)
	}
	st := dev.Stats
	if st.DeviceRefused != 1 || !strings.Contains(st.DeviceRefusal, "10-bit surfaces (fake)") || st.Computed != 3 || st.Failed != 1 {
		t.Errorf("stats %+v: want bars.mp4 refused, 3 computed, the corrupt file failed", st)
	}
	if _, ok := st.Busy["prep"]; ok {
		t.Errorf("the host preprocessed frames on the GPU frame path (busy %v)", st.Busy)
	}
	onDevice, hostFrames := 0, 0
	for k, v := range dev.Videos {
		hv := host.Videos[k]
		if v.Path != hv.Path || !slices.Equal(v.Times, hv.Times) || !slices.Equal(v.Captions, hv.Captions) {
			t.Errorf("%s: times or captions differ from the host path's; the captioner reads host frames on either path", v.Path)
		}
		if filepath.Base(v.Path) == "bars.mp4" {
			hostFrames += len(v.Times)
			if !slices.Equal(v.Embeddings.Data, hv.Embeddings.Data) {
				t.Errorf("%s: refused by the device, its embeddings differ from the host path's", v.Path)
			}
			continue
		}
		onDevice += len(v.Times)
		gave := fake.gave[v.Path]
		if len(gave) != len(v.Times) {
			t.Fatalf("%s: the device gave %d rows for %d times", v.Path, len(gave), len(v.Times))
		}
		for r := range gave {
			for j, x := range gave[r] {
				if math.Float32bits(x) != math.Float32bits(v.Embeddings.Row(r)[j]) {
					t.Fatalf("%s: row %d is not the device's embedding of its frame", v.Path, r)
				}
			}
		}
		if slices.Equal(v.Embeddings.Data, hv.Embeddings.Data) {
			t.Errorf("%s: the device's embeddings equal the host's; the fake should differ", v.Path)
		}
	}
	if st.FramesOnDevice != onDevice || st.FramesEmbedded != onDevice+hostFrames {
		t.Errorf("%d frames on the device and %d embedded; want %d and %d", st.FramesOnDevice, st.FramesEmbedded, onDevice, onDevice+hostFrames)
	}
	for i := range items {
		if dev.Items[i].Failure != host.Items[i].Failure || fmt.Sprint(dev.Items[i].Rows) != fmt.Sprint(host.Items[i].Rows) {
			t.Errorf("item %s: failure %q rows %v; the host path's %q %v", items[i].ID, dev.Items[i].Failure, dev.Items[i].Rows, host.Items[i].Failure, host.Items[i].Rows)
		}
	}

	// Again on the device path: its entries are read back; the refused
	// video is refused again and embedded on the host again.
	again, err := Extract(ctx, items, devOpt())
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Stats; st.Cached != 2 || st.Computed != 1 || st.DeviceRefused != 1 {
		t.Errorf("device run again: stats %+v; want bbb and short cached, bars computed", st)
	}
	// A host run on the same cache reads only the refused video's entry.
	hostAgain, err := Extract(ctx, items, testOptions(root, devCache, 1))
	if err != nil {
		t.Fatal(err)
	}
	if st := hostAgain.Stats; st.Cached != 1 || st.Computed != 2 {
		t.Errorf("host run on the device run's cache: stats %+v; want bars cached, the others computed", st)
	}
	for k, v := range hostAgain.Videos {
		if !slices.Equal(v.Embeddings.Data, host.Videos[k].Embeddings.Data) {
			t.Errorf("%s: the host run read other embeddings than the host path's", v.Path)
		}
	}
}

// TestExtractDeviceFramePathNeedsNames: the GPU frame path needs one
// encoder per image tower and a name of each path.
func TestExtractDeviceFramePathNeedsNames(t *testing.T) {
	openTiny(t)
	for _, tc := range []struct {
		name      string
		encoders  int
		host, dev string
	}{
		{"no host name", 1, "", "tiny-clip:frame_path=device"},
		{"one name for both", 1, "tiny-clip", "tiny-clip"},
		{"two encoders for one tower", 2, "tiny-clip", "tiny-clip:frame_path=device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t.TempDir(), t.TempDir(), 1)
			o.ImageName, o.HostImageName = tc.dev, tc.host
			for range tc.encoders {
				o.DeviceImage = append(o.DeviceImage, &fakeDevice{})
			}
			if _, err := Extract(context.Background(), testItems(), o); err == nil || !strings.Contains(err.Error(), "GPU frame path") {
				t.Fatalf("error %v; want the GPU frame path's options refused", err)
			}
		})
	}
}

// fakeFrames is the tower side of NVDECTower: it hands the decoder's
// pictures to yield and counts them.
type fakeFrames struct{ pictures int }

func (f *fakeFrames) EmbedDecoded(_ context.Context, n int, visit models.NV12Visitor) ([][]float32, error) {
	err := visit(func(int, nv12.Frame) error { f.pictures++; return nil })
	return make([][]float32, n), err
}

// TestNVDECTowerRefusesHostDecoders: a decoder that is not on NVDEC (the
// CPU asked for, or NVDEC unavailable here) hands no picture over, and the
// refusal reaches the feature stage as decode.ErrNotOnDevice, so the
// video takes the host path.
func TestNVDECTowerRefusesHostDecoders(t *testing.T) {
	path := filepath.Join(sharedVideos(t), "big_buck_bunny_432_433.webm")
	for _, hw := range []string{"", "cuda"} {
		t.Run("hwaccel="+hw, func(t *testing.T) {
			ff := &fakeFrames{}
			_, err := NVDECTower{Frames: ff}.EmbedVideo(context.Background(), path, decode.Options{Threads: 1, HWAccel: hw}, []time.Duration{0, 500 * time.Millisecond})
			if err == nil && hw == "cuda" {
				t.Skip("NVDEC handed pictures over here: a GPU machine")
			}
			if !errors.Is(err, decode.ErrNotOnDevice) || ff.pictures != 0 {
				t.Fatalf("error %v after %d pictures; want decode.ErrNotOnDevice before any", err, ff.pictures)
			}
		})
	}
}
