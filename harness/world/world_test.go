package world

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

func TestMain(m *testing.M) {
	if err := decode.SetLogLevel("error"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

func TestPlanIsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	a, err := Plan(Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Plan(Options{Seed: 7})
	if !reflect.DeepEqual(a.Items, b.Items) || !reflect.DeepEqual(a.Truth, b.Truth) {
		t.Fatal("the same seed planned two different worlds")
	}
	c, _ := Plan(Options{Seed: 8})
	if reflect.DeepEqual(a.Items, c.Items) {
		t.Fatal("another seed planned the same items")
	}
}

func TestPlanRejectsBadOptions(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]Options{
		"fewer videos than families": {Videos: 3},
		"min above max":              {MinDuration: 10, MaxDuration: 5},
		"odd width":                  {Width: 191, Height: 144},
		"no frame rate":              {FPS: -1},
	} {
		if _, err := Plan(opt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestItemsHaveOneTrueAnswerAndBalancedPositions checks what the families
// promise: every item is valid, each family's gold positions are spread
// evenly, and colour questions offer one class of four equally long words.
func TestItemsHaveOneTrueAnswerAndBalancedPositions(t *testing.T) {
	t.Parallel()
	w, err := Plan(Options{Seed: 3, Videos: 120})
	if err != nil {
		t.Fatal(err)
	}
	positions := map[string][]int{}
	for _, it := range w.Items {
		if it.Answer < 0 || it.Answer >= len(it.Options) {
			t.Fatalf("%s: answer %d of %d options", it.ID, it.Answer, len(it.Options))
		}
		if len(positions[it.Group]) == 0 {
			positions[it.Group] = make([]int, len(it.Options))
		}
		if it.Task != "count" && it.Task != "exists" && len(positions[it.Group]) == len(it.Options) {
			positions[it.Group][it.Answer]++
		}
		if it.Task == "colour" {
			for _, o := range it.Options[1:] {
				if len(o) != len(it.Options[0]) {
					t.Fatalf("%s: colour options of different lengths %q", it.ID, it.Options)
				}
			}
		}
	}
	for fam, counts := range positions {
		lo, hi := math.MaxInt, 0
		for _, c := range counts {
			lo, hi = min(lo, c), max(hi, c)
		}
		if hi-lo > 2*len(counts) {
			t.Errorf("%s: gold positions %v are not balanced", fam, counts)
		}
	}
	if len(w.Truth.Items) != len(w.Items) {
		t.Fatalf("%d truth items for %d items", len(w.Truth.Items), len(w.Items))
	}
}

// TestRenderedShapesFillTheirBox checks the property the image model reads:
// the share of its bounding box each shape fills.
func TestRenderedShapesFillTheirBox(t *testing.T) {
	t.Parallel()
	want := map[Shape]float64{Square: 1, Circle: math.Pi / 4, Triangle: 0.5, Star: 0.32}
	for s, fill := range want {
		sc := Scene{Duration: 1, Backgrounds: []Segment{{0, 1, Black}},
			Objects: []Object{{Shape: s, Colour: White, Size: 0.8, Start: 0, End: 1, X0: 0.5, Y0: 0.5, X1: 0.5, Y1: 0.5}}}
		const w, h = 200, 200
		rgb := make([]byte, w*h*3)
		sc.Render(0.5, w, h, rgb)
		minX, maxX, minY, maxY, area := w, -1, h, -1, 0
		for y := range h {
			for x := range w {
				if rgb[3*(y*w+x)] == 245 {
					area++
					minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
				}
			}
		}
		got := float64(area) / float64((maxX-minX+1)*(maxY-minY+1))
		if math.Abs(got-fill) > 0.03 {
			t.Errorf("%s fills %.3f of its box, want %.3f", s, got, fill)
		}
	}
}

func TestGenerateWritesTheSameBytesForTheSameSeed(t *testing.T) {
	t.Parallel()
	opt := Options{Seed: 5, Videos: 9, MinDuration: 2, MaxDuration: 3}
	dirs := []string{t.TempDir(), t.TempDir()}
	for k, d := range dirs {
		o := opt
		o.Workers = 1 + 2*k // any worker count gives the same bytes
		if _, err := Generate(context.Background(), d, o); err != nil {
			t.Fatal(err)
		}
	}
	files := 0
	filepath.WalkDir(dirs[0], func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dirs[0], p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(dirs[1], rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same seed", rel)
		}
		files++
		return nil
	})
	if want := 9 + audioVideos(opt) + 2 + 11 + 7; files != want {
		t.Fatalf("%d files, want %d: 9 videos, %d of the audio family, items.jsonl, truth.json and the 18 files of models/", files, want, audioVideos(opt))
	}
	items, err := harness.ReadFiles(context.Background(), []string{filepath.Join(dirs[0], ItemsFile)}, harness.ReadOptions{VideoRoot: dirs[0]})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := truth.Read(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Items) != len(items) {
		t.Fatalf("truth has %d items, items.jsonl %d", len(tr.Items), len(items))
	}
	// Every video decodes to the planned length.
	for _, it := range items {
		info, err := decode.Probe(context.Background(), filepath.Join(dirs[0], it.VideoPath))
		if err != nil {
			t.Fatal(err)
		}
		if d := info.Duration.Seconds(); math.Abs(d-*it.Duration) > 0.2 {
			t.Fatalf("%s: video lasts %.2f s, item says %.2f", it.ID, d, *it.Duration)
		}
	}
	var back truth.Truth
	b, _ := os.ReadFile(filepath.Join(dirs[0], TruthFile))
	if err := json.Unmarshal(b, &back); err != nil || back.Families[0].Expected == nil || *back.Families[0].Expected != harness.LevelOption {
		t.Fatalf("truth.json: %v, first family %+v", err, back.Families[0])
	}
}
