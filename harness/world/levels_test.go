package world

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// TestWorldModelsSolveEachFamilyAtItsLevel checks the world's design with
// its own models, through the accesses of the frame and order levels as
// Video-Index and Video-Oasis define them: the centre frame against each
// option (and against "question option"), and the bag of frames at one per
// second, the top 32 by similarity to the question, scoring each option by
// the mean and the max of its cosine to them. The families planted at the
// frame level must be solved from the centre frame; those planted at the
// order level from the bag but not from the centre frame; order and clean
// by neither.
func TestWorldModelsSolveEachFamilyAtItsLevel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Generate(ctx, dir, Options{Seed: 6, Videos: 60, MinDuration: 4, MaxDuration: 16})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	man, err := models.LoadManifest(filepath.Join(dir, ModelsDir))
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, rt.Devices()[0])
	if err != nil {
		t.Fatal(err)
	}
	type access struct{ centre, centreQA, bagMean, bagMax []float64 } // correct per item
	byFamily := map[string]*access{}
	for _, v := range w.videos {
		d, err := decode.Open(ctx, filepath.Join(dir, VideosDir, v.id+".mp4"), decode.Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		times := []time.Duration{time.Duration(v.duration / 2 * float64(time.Second))}
		for s := 0.5; s < v.duration; s++ {
			times = append(times, time.Duration(s*float64(time.Second)))
		}
		slices.Sort(times)
		frames, err := d.Frames(ctx, times, decode.Size{}, nil)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		var imgs []imageprep.Frame
		centre := -1
		for i, f := range frames {
			imgs = append(imgs, imageprep.Frame{Pix: f.RGB, Width: f.Width, Height: f.Height})
			if times[i] == time.Duration(v.duration/2*float64(time.Second)) {
				centre = i
			}
		}
		embs, err := it.EmbedFrames(ctx, imgs)
		if err != nil {
			t.Fatal(err)
		}
		var bag [][]float32
		for i := range embs {
			if i != centre || math.Mod(v.duration/2, 1) == 0.5 {
				bag = append(bag, embs[i])
			}
		}
		for _, item := range w.Items {
			if item.Video != v.id {
				continue
			}
			a := byFamily[item.Group]
			if a == nil {
				a = &access{}
				byFamily[item.Group] = a
			}
			var qa []string
			for _, o := range item.Options {
				qa = append(qa, item.Question+" "+o)
			}
			opts, err := it.EmbedTexts(ctx, item.Options)
			if err != nil {
				t.Fatal(err)
			}
			qas, _ := it.EmbedTexts(ctx, qa)
			q, _ := it.EmbedTexts(ctx, []string{item.Question})
			score := func(row []float64) float64 { // 1 right, 1/ties on a tie, 0 wrong
				best := slices.Max(row)
				ties := 0
				for _, x := range row {
					if x == best {
						ties++
					}
				}
				if row[item.Answer] == best {
					return 1 / float64(ties)
				}
				return 0
			}
			a.centre = append(a.centre, score(it.Logits([][]float32{embs[centre]}, opts)[0]))
			a.centreQA = append(a.centreQA, score(it.Logits([][]float32{embs[centre]}, qas)[0]))
			sims := it.Logits(bag, q)
			idx := make([]int, len(bag))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(x, y int) int {
				switch {
				case sims[x][0] > sims[y][0]:
					return -1
				case sims[x][0] < sims[y][0]:
					return 1
				}
				return 0
			})
			if len(idx) > 32 {
				idx = idx[:32]
			}
			var top [][]float32
			for _, i := range idx {
				top = append(top, bag[i])
			}
			l := it.Logits(top, opts)
			mean, mx := make([]float64, len(item.Options)), make([]float64, len(item.Options))
			for j := range mean {
				mx[j] = math.Inf(-1)
				for _, row := range l {
					mean[j] += row[j] / float64(len(l))
					mx[j] = max(mx[j], row[j])
				}
			}
			a.bagMean = append(a.bagMean, score(mean))
			a.bagMax = append(a.bagMax, score(mx))
		}
	}
	acc := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	for _, f := range Families() {
		a := byFamily[f.Name]
		if a == nil {
			t.Fatalf("%s: no items", f.Name)
		}
		centre := max(acc(a.centre), acc(a.centreQA))
		bag := max(acc(a.bagMean), acc(a.bagMax))
		chance := 0.25
		if f.Name == "order" || f.Name == "siblings" || f.Name == "copy" {
			chance = 0.5
		}
		sig := chance + 2.326*math.Sqrt(chance*(1-chance)/float64(len(a.centre)))
		t.Logf("%-16s n=%3d centre %.3f centre+q %.3f bag-mean %.3f bag-max %.3f (chance %.2f, significant from %.3f)",
			f.Name, len(a.centre), acc(a.centre), acc(a.centreQA), acc(a.bagMean), acc(a.bagMax), chance, sig)
		switch f.Name {
		case "single-frame":
			if centre < 0.9 {
				t.Errorf("%s: the centre frame solves %.3f, want at least 0.9", f.Name, centre)
			}
		case "some-frames", "window":
			if centre >= sig || bag < 0.9 {
				t.Errorf("%s: centre frame %.3f (must stay below %.3f), bag of frames %.3f (want at least 0.9)", f.Name, centre, sig, bag)
			}
		case "order", "clean":
			if centre >= sig || bag >= sig {
				t.Errorf("%s: centre frame %.3f, bag of frames %.3f: both must stay below %.3f", f.Name, centre, bag, sig)
			}
		}
	}
}
