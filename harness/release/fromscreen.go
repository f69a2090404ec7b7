package release

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/kernels"
)

// FromScreen builds the pool of a screen: the items screening keeps, in the
// run's order, with the screen's verdicts, each item's near-duplicate
// cluster, and visual scenes by leader clustering of the videos' mean frame
// embeddings per duration group, calibrated from sceneThreshold (Scenes; a
// video's group is that of its first kept item). Items whose video has no
// frame embedding (no video level ran, or the video
// failed) are each their video's own scene. versions holds the version of
// each attacker that answered the run (rundir.Config.AttackerVersions); nil
// when the run does not say. significant lists, per benchmark, the
// attackers the run's cards find significantly above chance (cards.json);
// nil when unknown, and every verdict then counts as significant, as
// screening treats a run without cards.
func FromScreen(ctx context.Context, s *screen.Screen, versions map[string]string, significant map[string][]string, sceneThreshold float32, opt kernels.Options) (*Pool, error) {
	all := attack.DefaultConfig()
	all.Levels = harness.Levels()
	all.Roles = []string{attack.RoleLMReader} // retrieval-reader learns from its pool too
	learns := map[string]bool{}
	for _, a := range attack.Attackers(all) {
		learns[a.Name()] = attack.Prequential(a)
	}
	atts := make([]Attacker, len(s.Attackers))
	for k, a := range s.Attackers {
		l, err := harness.ParseLevel(a.Level)
		if err != nil {
			return nil, fmt.Errorf("screen: attacker %s: %w", a.Name, err)
		}
		atts[k] = Attacker{Name: a.Name, Level: l, Pooled: learns[a.Name], Version: versions[a.Name]}
	}
	var cands []Candidate
	var screened []*harness.Item
	var videos, groups []string
	frameRow := map[string]int{}
	for i := range s.Rows {
		r := &s.Rows[i]
		it := &harness.Item{ID: r.ID, Benchmark: r.Benchmark, Video: r.Video, Question: r.Question,
			Options: r.Options, Answer: int(r.Answer), Task: r.Task, Duration: r.Duration, DurationCategory: r.DurationCategory, Group: r.Group}
		if !r.Kept {
			screened = append(screened, it)
			continue
		}
		for _, q := range r.Quality {
			if f, ok := harness.Flag(q); ok {
				it.Quality |= f
			}
		}
		c := Candidate{Item: it, Template: int(r.Cluster), TemplateSize: int(r.ClusterSize), Verdicts: make([]Verdict, len(atts)), Video: runIdentity(r)}
		for k, v := range r.Verdicts {
			// The options-only and blind steps rank by their mean margin
			// over the four seeded orders (the authors' opt_margin and
			// blind_margin, Video-Index pool/screen.py), not by the
			// original order's: rankMargin.
			m := rankMargin(v)
			sig := significant == nil || slices.Contains(significant[r.Benchmark], atts[k].Name)
			c.Verdicts[k] = Verdict{Scored: v.Scored, Abstained: v.Abstained, Correct: v.Correct, Solved: v.Solved, Margin: m, Significant: sig}
		}
		cands = append(cands, c)
		if s.Embeddings.MeanFrame != nil && r.HasFrame && r.Embedding >= 0 {
			if _, ok := frameRow[r.Video]; !ok {
				frameRow[r.Video] = int(r.Embedding)
				videos = append(videos, r.Video)
				groups = append(groups, DurationGroup(it))
			}
		}
	}
	var sceneGroups []SceneGroup
	if len(videos) > 0 {
		x := kernels.NewMatrix(len(videos), s.Embeddings.MeanFrame.Cols)
		for k, v := range videos {
			copy(x.Row(k), s.Embeddings.MeanFrame.Row(frameRow[v]))
		}
		scenes, stats, err := Scenes(ctx, videos, groups, x, sceneThreshold, opt)
		if err != nil {
			return nil, err
		}
		sceneGroups = stats
		for i := range cands {
			cands[i].Scene = scenes[cands[i].Item.Video]
		}
	}
	p, err := NewPool(atts, cands)
	if err != nil {
		return nil, err
	}
	p.Screened = screened
	p.SceneGroups = sceneGroups
	p.VideosBy = runVideosBy(p.Candidates)
	return p, nil
}

// rankMargin is the margin hardest-K ranks verdict v by: for an attacker
// judged on several seeded option orders (the options-only and blind
// readers), the mean gold margin over those orders (screen.Verdict's
// OrdersMargin: Video-Index pool/select.py ranks opt_margin and
// blind_margin, which pool/screen.py averages over the four orders); for any
// other, or a screen written without it, the verdict's own margin; NaN where
// the attacker did not score the item.
func rankMargin(v screen.Verdict) float64 {
	switch {
	case !v.Scored:
		return math.NaN()
	case v.OrdersMargin != nil:
		return *v.OrdersMargin
	}
	return v.Margin
}

// Restore gives the pool's items the fields of the item schema a screen
// does not carry (video_path, start, end, meta) from the audit's own items,
// matched by benchmark and id. It refuses an item whose question, options
// or answer differ from the screen's: the files are not the audit's.
// It returns how many candidates it matched; items of the files that the
// pool does not hold (screening removed them) are ignored.
func Restore(p *Pool, items []*harness.Item) (int, error) {
	byKey := make(map[string]*harness.Item, len(items))
	for _, it := range items {
		byKey[it.Key()] = it
	}
	n := 0
	for i := range p.Candidates {
		c := p.Candidates[i].Item
		src, ok := byKey[c.Key()]
		if !ok {
			continue
		}
		if src.Question != c.Question || src.Answer != c.Answer || !slices.Equal(src.Options, c.Options) {
			return n, fmt.Errorf("item %s/%s (%s) differs from the screened item: these are not the audit's items", c.Benchmark, c.ID, src.Source)
		}
		c.VideoPath, c.Start, c.End, c.Meta = src.VideoPath, src.Start, src.End, src.Meta
		n++
	}
	return n, nil
}
