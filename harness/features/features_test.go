package features

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// sharedVideos is ../shared/data/videos seen from the repository root.
func sharedVideos(t testing.TB) string {
	t.Helper()
	return shareddata.Path(t, "videos")
}

// tinyModels are the project's small models, opened once per test binary.
var tiny struct {
	once sync.Once
	dir  string
	rt   *models.Runtime
	it   *models.ImageText
	capt *models.Captioner
	prep *imageprep.Processor
	err  error
}

func openTiny(t testing.TB) {
	t.Helper()
	tiny.once.Do(func() {
		tiny.dir, tiny.err = os.MkdirTemp("", "vidscreen-features-")
		if tiny.err != nil {
			return
		}
		if tiny.err = onnxbuild.WriteModelsDir(tiny.dir); tiny.err != nil {
			return
		}
		tiny.rt, tiny.err = models.NewRuntime(models.RuntimeOptions{Threads: 1})
		if tiny.err != nil {
			return
		}
		m, err := models.LoadManifest(tiny.dir)
		if err != nil {
			tiny.err = err
			return
		}
		if tiny.it, tiny.err = tiny.rt.OpenImageText(m, gpu.CPUDevice()); tiny.err != nil {
			return
		}
		if tiny.capt, tiny.err = tiny.rt.OpenCaptioner(m, gpu.CPUDevice()); tiny.err != nil {
			return
		}
		cfg, err := imageprep.ReadConfig(filepath.Join(tiny.dir, "image_text", "preprocessor_config.json"))
		if err != nil {
			tiny.err = err
			return
		}
		tiny.prep, tiny.err = imageprep.New(*cfg, imageprep.Options{Workers: 1})
	})
	if tiny.err != nil {
		t.Skipf("small models unavailable (ONNX Runtime: make setup-ort): %v", tiny.err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tiny.dir != "" {
		os.RemoveAll(tiny.dir)
	}
	os.Exit(code)
}

// videoRoot copies three shared videos into a fresh root (one the 1080p
// BT.709 colour bars, whose decoding was once not reproducible) and adds a
// corrupt file and a symbolic link that leaves the root.
func videoRoot(t *testing.T) string {
	src := sharedVideos(t)
	root := t.TempDir()
	copyVideo(t, src, root, "big_buck_bunny_0_30_h264_640.mp4", "bbb.mp4")
	copyVideo(t, src, root, "big_buck_bunny_432_433.webm", "short.webm")
	copyVideo(t, src, root, "smpte-2997.mp4", "bars.mp4")
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(root, "corrupt.mp4"), junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(src, "smpte-2997.mp4"), filepath.Join(root, "link.mp4")); err != nil {
		t.Fatal(err)
	}
	return root
}

func f64(v float64) *float64 { return &v }

func testItems() []*harness.Item {
	mk := func(id, path string) *harness.Item {
		return &harness.Item{ID: id, Benchmark: "B", Video: id, VideoPath: path, Question: "what happens", Options: []string{"a", "b"}, Source: "t.jsonl:" + id}
	}
	clip := mk("clip", "bbb.mp4")
	clip.Start, clip.End = f64(5), f64(10)
	return []*harness.Item{mk("whole", "bbb.mp4"), clip, mk("short", "short.webm"), mk("gone", "gone.mp4"),
		mk("up", "../x.mp4"), mk("corrupt", "corrupt.mp4"), mk("link", "link.mp4"), mk("bars", "bars.mp4")}
}

func testOptions(root, cache string, workers int) Options {
	return Options{
		Root: root, CacheDir: cache,
		Sets:  []Set{CentreSet, BagSet, CaptionSet},
		Image: []ImageEncoder{tiny.it}, ImageName: "tiny-clip", Prep: tiny.prep,
		Captioner: []Captioner{tiny.capt}, CaptionerName: "tiny-captioner",
		Size:     decode.Size{Short: 32},
		Decode:   decode.Pool{Workers: workers, Threads: 1},
		MaxBatch: 16,
	}
}

func TestExtract(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	items := testItems()
	ctx := context.Background()
	cacheDir := t.TempDir()
	res, err := Extract(ctx, items, testOptions(root, cacheDir, 2))
	if err != nil {
		t.Fatal(err)
	}
	wantFail := []string{"", "", "", FailureMissing, FailureOutsideRoot, string(decode.KindCorrupt), FailureOutsideRoot, ""}
	for i, it := range res.Items {
		if it.Failure != wantFail[i] {
			t.Errorf("item %s: failure %q (%v), want %q", items[i].ID, it.Failure, it.Err, wantFail[i])
		}
	}
	// Hash is the SHA-256 of the file read: one for the two items of
	// bbb.mp4, none where no file was read (missing, outside the root).
	for i, it := range res.Items {
		want := ""
		if wantFail[i] == "" || wantFail[i] == string(decode.KindCorrupt) {
			b, err := os.ReadFile(filepath.Join(root, items[i].VideoPath))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			want = hex.EncodeToString(sum[:])
		}
		if it.Hash != want {
			t.Errorf("item %s: content %q, want %q", items[i].ID, it.Hash, want)
		}
	}
	if st := res.Stats; st.Videos != 4 || st.Computed != 3 || st.Failed != 1 || st.Cached != 0 {
		t.Errorf("stats %+v: want 4 videos (link and .. never reach a decoder), 3 computed, 1 failed", st)
	}
	whole, clip := res.Items[0], res.Items[1]
	if whole.Video != clip.Video || len(res.Videos) != 3 {
		t.Fatalf("items of one file share one video: %d and %d of %d", whole.Video, clip.Video, len(res.Videos))
	}
	v := res.Videos[whole.Video]
	for _, tt := range []struct {
		item Item
		set  string
		n    int
	}{{whole, "centre", 1}, {whole, "uniform", 32}, {whole, "bag", 30}, {clip, "bag", 5}, {clip, "uniform", 32}} {
		if got := len(tt.item.Rows[tt.set]); got != tt.n {
			t.Errorf("set %s: %d rows, want %d", tt.set, got, tt.n)
		}
	}
	// The clip's frames lie inside the clip.
	for _, r := range clip.Rows["bag"] {
		if tm := v.Times[r].Seconds(); tm < 5 || tm > 10 {
			t.Errorf("clip frame at %.3fs, outside 5-10 s", tm)
		}
	}
	// Only the uniform frames are captioned: those of both items of the
	// first video, and those of the short one.
	captioned := map[[2]int]bool{}
	for _, it := range res.Items {
		for _, r := range it.Rows["uniform"] {
			captioned[[2]int{it.Video, r}] = true
		}
	}
	if res.Stats.Captions != len(captioned) {
		t.Errorf("%d frames captioned, want the %d uniform ones", res.Stats.Captions, len(captioned))
	}
	words := 0
	for r, c := range v.Captions {
		if c != "" && !captioned[[2]int{whole.Video, r}] {
			t.Errorf("frame %d outside the uniform set has caption %q", r, c)
		}
		words += len(c)
	}
	if words == 0 {
		t.Errorf("every caption is empty")
	}

	// Each row is the embedding of its frame alone: decoding the centre frame
	// directly and embedding it beside an unrelated frame gives the same
	// bits.
	d, err := decode.Open(ctx, v.Path, decode.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := whole.Rows["centre"][0]
	frames, err := d.Frames(ctx, v.Times[r:r+1], decode.Size{Short: 32}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f0 := imageprep.Frame{Pix: frames[0].RGB, Width: frames[0].Width, Height: frames[0].Height, Stride: 3 * frames[0].Width}
	grey := imageprep.Frame{Pix: make([]byte, 3*40*40), Width: 40, Height: 40}
	alone, err := tiny.it.EmbedFrames(ctx, []imageprep.Frame{grey, f0})
	if err != nil {
		t.Fatal(err)
	}
	alone = alone[1:]
	for j, x := range alone[0] {
		if math.Float32bits(x) != math.Float32bits(v.Embeddings.Row(r)[j]) {
			t.Fatalf("centre frame embedding differs from the frame embedded alone at %d: %v vs %v", j, v.Embeddings.Row(r)[j], x)
		}
	}

	// A second run reads every video from the cache and decodes nothing;
	// another worker count gives the same features.
	again, err := Extract(ctx, items, testOptions(root, cacheDir, 1))
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Stats; st.Cached != 3 || st.Computed != 0 || st.FramesDecoded != 0 {
		t.Errorf("second run stats %+v: want every video cached and nothing decoded", st)
	}
	other, err := Extract(ctx, items, testOptions(root, t.TempDir(), 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, r2 := range []*Result{again, other} {
		for k, v2 := range r2.Videos {
			if !slices.Equal(v2.Embeddings.Data, res.Videos[k].Embeddings.Data) || !slices.Equal(v2.Captions, res.Videos[k].Captions) || !slices.Equal(v2.Times, res.Videos[k].Times) {
				t.Errorf("video %s: features differ between runs", v2.Path)
			}
		}
	}
}

// copyVideo copies src/from to root/to.
func copyVideo(t testing.TB, src, root, from, to string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(src, from))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, to), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
