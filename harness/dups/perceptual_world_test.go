package dups_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/world"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// reencode decodes every frame of src and writes them again as H.264 at
// crf and the given size: the same video, other bytes, as a benchmark that
// transcodes its copy ships it.
func reencode(t *testing.T, src, dst string, crf int, size decode.Size) {
	t.Helper()
	ctx := context.Background()
	d, err := decode.Open(ctx, src, decode.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	info := d.Info()
	fps := info.FrameRate
	if fps <= 0 {
		t.Fatalf("%s: no frame rate", src)
	}
	n := int(info.Duration.Seconds() * fps)
	times := make([]time.Duration, n)
	for k := range times {
		times[k] = time.Duration((float64(k) + 0.5) / fps * float64(time.Second))
	}
	frames, err := d.Frames(ctx, times, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, h := frames[0].Width&^1, frames[0].Height&^1
	enc, err := decode.CreateH264(dst, decode.EncodeOptions{Width: w, Height: h, FPS: int(fps + 0.5), CRF: crf})
	if err != nil {
		t.Fatal(err)
	}
	rgb := make([]byte, w*h*3)
	for _, f := range frames {
		for y := range h {
			copy(rgb[y*w*3:(y+1)*w*3], f.RGB[y*f.Width*3:y*f.Width*3+w*3])
		}
		if err := enc.WriteRGB(rgb); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
}

// frameMeans extracts the 32 uniform frames of each item's video with the
// image tower of modelsDir, as the audit does, and returns their FrameMeans
// and the videos' SHA-256.
func frameMeans(t *testing.T, root, modelsDir string, items []*harness.Item) ([]dups.FrameMean, []string) {
	t.Helper()
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Skipf("ONNX Runtime unavailable (make setup-ort): %v", err)
	}
	man, err := models.LoadManifest(modelsDir)
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, rt.Devices()[0])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := imageprep.ReadConfig(filepath.Join(modelsDir, "image_text", "preprocessor_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := imageprep.New(*cfg, imageprep.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := features.Extract(context.Background(), items, features.Options{
		Root: root, CacheDir: t.TempDir(), Sets: []features.Set{features.UniformSet},
		Image: []features.ImageEncoder{it}, ImageName: "world", Prep: prep,
		Decode: decode.Pool{Workers: 2, Threads: 1}, MaxBatch: 32,
	})
	if err != nil {
		t.Fatal(err)
	}
	means := make([]dups.FrameMean, len(items))
	sums := make([]string, len(items))
	for i, f := range res.Items {
		if f.Failure != "" {
			t.Fatalf("item %s: %s: %v", items[i].ID, f.Failure, f.Err)
		}
		means[i] = dups.MeanFrame(res.Videos[f.Video].Embeddings, f.Rows[features.UniformSet.Name])
		sums[i] = f.Hash
	}
	return means, sums
}

func cosine(a, b []float32) float64 {
	var s float64
	for j := range a {
		s += float64(a[j]) * float64(b[j])
	}
	return s
}

// TestPerceptualIdentityJoinsReencodesOfTheWorld defends the 0.95
// threshold on the world's image tower (onnxbuild's colour-and-shape
// model, the one the project builds): each world video is encoded twice
// more (CRF 38 at its size; CRF 30 at 2/3 of its size), which gives other
// bytes; the perceptual identity joins each video with its re-encodes and
// keeps different videos apart. It logs the two cosine distributions and
// the frame agreement of each video, the figures docs/attackers.md quotes.
func TestPerceptualIdentityJoinsReencodesOfTheWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("renders and encodes videos")
	}
	ctx := context.Background()
	dir := t.TempDir()
	w, err := world.Generate(ctx, dir, world.Options{Seed: 7, Videos: 24, MinDuration: 4, MaxDuration: 10, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	root := dir
	var videos []string
	for _, it := range w.Items {
		if !slices.Contains(videos, it.VideoPath) {
			videos = append(videos, it.VideoPath)
		}
	}
	slices.Sort(videos)
	var items []*harness.Item
	of := map[string]string{} // item id -> source video
	add := func(id, path, src string) {
		items = append(items, &harness.Item{ID: id, Benchmark: "B", Video: id, VideoPath: path, Question: "q", Options: []string{"a", "b"}, Source: id})
		of[id] = src
	}
	for _, v := range videos {
		add(v, v, v)
		a := filepath.Join(filepath.Dir(v), "crf38-"+filepath.Base(v))
		b := filepath.Join(filepath.Dir(v), "small-"+filepath.Base(v))
		reencode(t, filepath.Join(root, v), filepath.Join(root, a), 38, decode.Size{})
		reencode(t, filepath.Join(root, v), filepath.Join(root, b), 30, decode.Size{Short: 96})
		add(a, a, v)
		add(b, b, v)
	}
	means, sums := frameMeans(t, root, filepath.Join(dir, world.ModelsDir), items)

	same, diff, sameAligned, diffAligned := []float64{}, []float64{}, []float64{}, []float64{}
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			c := cosine(means[i].Mean, means[j].Mean)
			if of[items[i].ID] == of[items[j].ID] {
				if sums[i] == sums[j] {
					t.Fatalf("%s and %s: one SHA-256: the re-encode did not change the bytes", items[i].ID, items[j].ID)
				}
				same = append(same, c)
				sameAligned = append(sameAligned, dups.Aligned(means[i].Frames, means[j].Frames))
			} else {
				diff = append(diff, c)
				if c >= dups.PerceptualThreshold {
					if means[i].Resultant < dups.StillResultant && means[j].Resultant < dups.StillResultant {
						diffAligned = append(diffAligned, dups.Aligned(means[i].Frames, means[j].Frames))
					}
				}
			}
		}
	}
	slices.Sort(same)
	slices.Sort(diff)
	slices.Sort(sameAligned)
	slices.Sort(diffAligned)
	t.Logf("aligned frames: re-encodes min %.4f; different moving videos whose means reach the threshold: %d pairs, max %.4f", sameAligned[0], len(diffAligned), slices.Max(append(diffAligned, 0)))
	if sameAligned[0] < dups.AlignedThreshold || len(diffAligned) > 0 && slices.Max(diffAligned) >= dups.AlignedThreshold {
		t.Errorf("the aligned confirmation at %.2f does not separate re-encodes (min %.4f) from different videos (%v)", dups.AlignedThreshold, sameAligned[0], diffAligned)
	}
	var res []float64
	for i := range items {
		res = append(res, means[i].Resultant)
	}
	slices.Sort(res)
	t.Logf("re-encodes of one video: %d pairs, cosine min %.4f median %.4f", len(same), same[0], same[len(same)/2])
	t.Logf("different videos: %d pairs, cosine median %.4f p99 %.4f max %.4f, %d at or above %.2f", len(diff), diff[len(diff)/2], diff[len(diff)*99/100], diff[len(diff)-1], countAtLeast(diff, dups.PerceptualThreshold), dups.PerceptualThreshold)
	t.Logf("frame agreement (resultant): min %.4f median %.4f max %.4f", res[0], res[len(res)/2], res[len(res)-1])

	base := make([]string, len(items))
	for i, it := range items {
		base[i] = dups.VideoIdentity(it, sums[i])
	}
	for _, threads := range []int{1, 3} {
		ids, n, err := dups.PerceptualIdentities(ctx, base, means, dups.PerceptualThreshold, kernels.Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("threads %d: %+v", threads, n)
		bySource := map[string]string{}
		for i, it := range items {
			src := of[it.ID]
			if means[i].Resultant >= dups.StillResultant {
				continue // left to its content: its own identity
			}
			if got, ok := bySource[src]; !ok {
				bySource[src] = ids[i]
			} else if got != ids[i] {
				t.Errorf("threads %d: %s is %q, its source %s is %q: a re-encode was missed", threads, it.ID, ids[i], src, got)
			}
		}
		seen := map[string]string{}
		for src, id := range bySource {
			if other, ok := seen[id]; ok {
				t.Errorf("threads %d: different videos %s and %s joined as %q", threads, src, other, id)
			}
			seen[id] = src
		}
	}
}

func countAtLeast(xs []float64, tau float64) int {
	n := 0
	for _, x := range xs {
		if x >= tau {
			n++
		}
	}
	return n
}
