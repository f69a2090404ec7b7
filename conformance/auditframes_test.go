package conformance

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// auditEmbedTolerance bounds the embeddings' difference where the pixels
// are equal: the feature stage embeds a video's frames in runs of several,
// the reference one frame per run, and ONNX Runtime's kernels sum in
// another order for another batch (measured: 1.6e-7, a float32 rounding
// or two on unit vectors).
const auditEmbedTolerance = 1e-6

// auditFrames is how many uniform frames of each development video the
// audit's feature stage takes in TestAuditFramesMatchPillow.
const auditFrames = 4

// auditTower writes `models init`'s folder into a temporary folder (with
// big, its image tower replaced by one of CLIP B/32's geometry: 224-pixel
// images, 32-pixel patches) and opens its image_text role on the CPU; it
// returns the tower and the bytes of its preprocessor_config.json.
func auditTower(t *testing.T, rt *models.Runtime, big bool) (tower, []byte) {
	t.Helper()
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	if big {
		cfg := onnxbuild.TinyCLIP
		cfg.Vision.Image, cfg.Vision.Patch = 224, 32
		if err := onnxbuild.NewCLIP(cfg).WriteDir(filepath.Join(dir, "image_text")); err != nil {
			t.Fatal(err)
		}
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close() })
	folder, _, _ := m.Folder(models.RoleImageText)
	raw, err := os.ReadFile(filepath.Join(folder, "preprocessor_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := imageprep.ParseConfig(raw, "preprocessor_config.json")
	if err != nil {
		t.Fatal(err)
	}
	prep, err := imageprep.New(*cfg, imageprep.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tower{it: it, prep: prep}, raw
}

// TestAuditFramesMatchPillow checks the audit's frame path end to end with
// --frame-resize processor (the default): the feature stage
// (harness/features.Extract, decoding at display size, decode.Size{}, as
// harness/run asks then) embeds each frame as the same tower
// embeds the pixels Python transformers' processor makes of the decoded
// full frame (py/imageproc.py on Pillow). On the four development videos,
// auditFrames uniform frames each, for `models init`'s 32-pixel CLIP and a
// tower of CLIP B/32's geometry: the pixels are the processor's bit for
// bit and the embeddings equal within auditEmbedTolerance. The same stage at --frame-resize ffmpeg's
// decode size (short side 112 and 224: FFmpeg scales first) does not give
// them; docs/models.md ("The frame path") measures by how much.
func TestAuditFramesMatchPillow(t *testing.T) {
	t.Parallel()
	dir := shareddata.Path(t, "videos")
	paths, err := realVideos()
	if err != nil || len(paths) == 0 {
		t.Fatalf("no development videos in %s (%v)", dir, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Skipf("ONNX Runtime unavailable (make setup-ort): %v", err)
	}
	var items []*harness.Item
	for _, p := range paths {
		name := filepath.Base(p)
		items = append(items, &harness.Item{ID: name, Benchmark: "B", Video: name, Question: "q", Options: []string{"a", "b"}, Source: name})
	}
	uniform, _ := features.UniformSets(auditFrames)
	ctx, cancel := context.WithTimeout(t.Context(), decodeTimeout)
	defer cancel()
	for _, tc := range []struct {
		name   string
		big    bool
		ffmpeg decode.Size
	}{
		{"models init CLIP 32", false, decode.Size{Short: 112}},
		{"CLIP 224 (B/32 geometry)", true, decode.Size{Short: 224}},
	} {
		tw, raw := auditTower(t, rt, tc.big)
		extract := func(size decode.Size) *features.Result {
			res, err := features.Extract(ctx, items, features.Options{
				Root: dir, CacheDir: t.TempDir(), Sets: []features.Set{uniform},
				Image: []features.ImageEncoder{tw.it}, ImageName: "tower", Prep: tw.prep,
				Size: size, Decode: decode.Pool{Workers: 1, Threads: 1}, MaxBatch: 8,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Videos) != len(paths) {
				t.Fatalf("%s: %d videos embedded of %d", tc.name, len(res.Videos), len(paths))
			}
			return res
		}
		audit, scaled := extract(decode.Size{}), extract(tc.ffmpeg)

		// The reference: the same frames decoded at display size, through
		// Pillow, into the same tower.
		var pics []picture
		for _, v := range audit.Videos {
			d, err := decode.Open(ctx, v.Path, decode.Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			frames, err := d.Frames(ctx, v.Times, decode.Size{}, nil)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range frames {
				pics = append(pics, picture{fmt.Sprintf("%s %dx%d #%d", filepath.Base(v.Path), f.Width, f.Height, i),
					imageprep.Frame{Pix: append([]byte(nil), f.RGB...), Width: f.Width, Height: f.Height}})
			}
		}
		cases, version := pillowPixels(t, pics, []pixelConfig{{name: "tower", raw: raw, prep: tw.prep}})
		h, w := tw.prep.OutputSize()
		var pixMax, embMax, scaledMax float64
		k := 0
		for vi, v := range audit.Videos {
			for r := range v.Times {
				c := cases[k]
				if len(c.values) != tw.prep.FrameLen() {
					t.Fatalf("%s: Pillow gave %d values for %s; want %d", tc.name, len(c.values), pics[k].name, tw.prep.FrameLen())
				}
				mine := make([]float32, tw.prep.FrameLen())
				if err := tw.prep.Batch(ctx, []imageprep.Frame{pics[k].frame}, mine); err != nil {
					t.Fatal(err)
				}
				for j := range mine {
					pixMax = max(pixMax, math.Abs(float64(mine[j]-c.values[j])))
				}
				ref, err := tw.it.EmbedImages(ctx, models.ImageBatch{N: 1, C: 3, H: h, W: w, Data: c.values})
				if err != nil {
					t.Fatal(err)
				}
				got, other := v.Embeddings.Row(r), scaled.Videos[vi].Embeddings.Row(r)
				for j := range got {
					embMax = max(embMax, math.Abs(float64(got[j]-ref[0][j])))
					scaledMax = max(scaledMax, math.Abs(float64(other[j]-ref[0][j])))
				}
				k++
			}
		}
		t.Logf("%s (%s): %d frames; audit at display size against the processor on the full frame: pixels max |diff| %g, embeddings max |diff| %g; at FFmpeg's %v: embeddings max |diff| %.4g",
			tc.name, version, k, pixMax, embMax, tc.ffmpeg, scaledMax)
		if pixMax != 0 || embMax > auditEmbedTolerance {
			t.Errorf("%s: the audit's frames at display size differ from the processor's on the full frame: pixels %g (want 0), embeddings %g (want at most %g)", tc.name, pixMax, embMax, auditEmbedTolerance)
		}
		if scaledMax <= auditEmbedTolerance {
			t.Errorf("%s: FFmpeg's scale to %v gave the processor's embeddings within %g: the test no longer tells the paths apart", tc.name, tc.ffmpeg, auditEmbedTolerance)
		}
	}
}
