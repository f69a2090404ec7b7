package release

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// benchPool is a pool shaped like Video-Index's screened pool (5.1: 62,142
// items from 105 sources, seven duration groups, 19 content categories):
// n items over 100 sources, 19 tasks, the seven duration groups, videos
// holding three items each, an eighth of the questions of one template per
// source, and two attackers' margins.
func benchPool(b *testing.B, n int) *Pool {
	b.Helper()
	durs := []float64{5, 30, 100, 300, 1000, 2500, 5000}
	cs := make([]Candidate, n)
	for i := range cs {
		d := durs[i%len(durs)]
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: fmt.Sprintf("source-%02d", i%100), Video: fmt.Sprintf("v%d", i/3),
			Task: fmt.Sprintf("task-%02d", (i/7)%19), Group: fmt.Sprintf("group-%d", i%4), Duration: &d, Options: []string{"a", "b", "c", "d"}}
		h := mix64(uint64(i))
		// One question template of a source in eight holds several items
		// (the numbers in a question are <NUM>); the rest hold one.
		if h%8 == 0 {
			it.Question = fmt.Sprintf("How many times does the person jump in clip %d?", i)
		} else {
			it.Question = idQuestion(fmt.Sprint("what does person ", i, " hold"))
		}
		cs[i] = Candidate{Item: it, Template: int(h % uint64(n/4+1)), TemplateSize: 1 + int(h>>32)%8,
			Verdicts: []Verdict{{Scored: true, Margin: float64(h%1000) / 500}, {Scored: true, Margin: float64((h>>20)%1000) / 500}}}
	}
	p, err := NewPool([]Attacker{{Name: "x"}, {Name: "y"}}, cs)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSelect draws the 10,000-item coverage composition of Video-Index
// 5.2 from a 62,142-item pool; it reports pool items per second and the
// selected items per second.
func BenchmarkSelect(b *testing.B) {
	p := benchPool(b, 62142)
	q := Query{Budget: 10000}
	b.ResetTimer()
	picks := 0
	for range b.N {
		sel, err := Select(p, q, 1, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		picks += len(sel.Picks)
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(p.Candidates)*b.N)/s, "pool-items/s")
	b.ReportMetric(float64(picks)/s, "selected/s")
}

// BenchmarkHardest takes the 210 hardest items per capability group (840,
// Video-Index 5.3) from the same pool.
func BenchmarkHardest(b *testing.B) {
	p := benchPool(b, 62142)
	q := Query{Hardest: 210, Per: PerGroup}
	b.ResetTimer()
	for range b.N {
		if _, err := Hardest(p, q, 1, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(p.Candidates)*b.N)/b.Elapsed().Seconds(), "pool-items/s")
}

// BenchmarkAttackTeam is one red-team attack: the learning attackers of the
// option, text and pool levels on a 1,000-item selection as its own pool
// (five rotating orders each), lexical embeddings fitted on it included.
func BenchmarkAttackTeam(b *testing.B) {
	p, cfg := attackPool(b, 1000)
	picks := make([]int, 1000)
	for i := range picks {
		picks[i] = i
	}
	team := &AttackTeam{Config: cfg, Seed: 1}
	b.ResetTimer()
	for range b.N {
		if _, err := team.Attack(context.Background(), p, picks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(picks)*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkScenes clusters 14,000 videos (2,000 in each duration group, 64
// dimensions, 200 looks) into scenes: the calibration's random pairs (all
// 300,000 drawn in each group, and again in the reference) and the leader
// clustering of each group; it reports videos per second.
func BenchmarkScenes(b *testing.B) {
	const perGroup, d = 2000, 64
	rng := rand.New(rand.NewPCG(1, 2))
	looks := kernels.NewMatrix(200, d)
	for i := range looks.Data {
		looks.Data[i] = float32(rng.NormFloat64())
	}
	names := DurationGroups()[:7]
	n := perGroup * len(names)
	videos, groups := make([]string, n), make([]string, n)
	x := kernels.NewMatrix(n, d)
	for i := range videos {
		videos[i], groups[i] = fmt.Sprintf("v%05d", i), names[i%len(names)]
		look := looks.Row(rng.IntN(looks.Rows))
		for k := range x.Row(i) {
			x.Row(i)[k] = look[k] + 0.3*float32(rng.NormFloat64())
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := Scenes(context.Background(), videos, groups, x, DefaultSceneThreshold, kernels.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "videos/s")
}
