package release

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// An Attacker names one column of a pool's verdicts.
type Attacker struct {
	Name  string        `json:"name"`
	Level harness.Level `json:"level"`
	// Pooled is true for an attacker that learns from other items of its
	// pool (attack.Prequential). Its answers depend on the pool, so the
	// red-team gate runs it again on the selection; an attacker that answers
	// each item alone gives the selection the answers it gave the pool.
	Pooled bool `json:"pooled"`
	// Version is the version of the attacker's method that answered the
	// screened pool (attack.Version, as the run's config.json records it);
	// empty when unknown.
	Version string `json:"version,omitempty"`
}

// A Verdict is what one attacker did with one candidate where it was
// scored.
type Verdict struct {
	Scored bool // some order scored the item (false: no verdict)
	// Abstained is true when the attacker had nothing to go on and its
	// choice is a seeded guess: the gate's residual counts it at the
	// item's chance, never as its guess (Video-Index 5.2; issue 20.4).
	Abstained bool
	Correct   bool
	Solved    bool // the solve rule (harness/solve) says the attacker solves the item
	// Margin is log p(gold) - mean log p(others), NaN when not scored; for
	// the options-only and blind readers, judged on four seeded option
	// orders, its mean over those orders (the authors' opt_margin and
	// blind_margin; FromScreen's rankMargin), which hardest-K ranks by.
	Margin float64
	// Significant is true when the run's card of the item's benchmark finds
	// the attacker significantly above chance. A screened verdict the gate
	// carries over drops an item only then, as screening does (Video-Index
	// 5.1: an attacker at chance on a benchmark solves its items by luck).
	Significant bool
}

// A Candidate is one screened item with what selection reads about it.
type Candidate struct {
	Item *harness.Item
	// Scene names the visual scene of the item's video (scenes cluster
	// videos that look alike; see Scenes). Empty means the video alone.
	Scene string
	// Template is the item's near-duplicate cluster and TemplateSize how
	// many items of the screened pool share it (1 for a question with no
	// near-duplicate); the pool's snapshot holds them, the selector reads
	// QuestionTemplate instead.
	Template     int
	TemplateSize int
	// QuestionTemplate is the item's question template (QuestionTemplate
	// of its question, which NewPool fills in when it is empty): the
	// per-template cap counts the items of one source with one template,
	// and a source gives its less templated questions first.
	QuestionTemplate string
	// Verdicts holds one verdict per attacker of the pool.
	Verdicts []Verdict
	// Video is the identity of the item's video (dups.VideoIdentity): its
	// content hash when select read the videos (--videos), else empty and
	// the video id stands. The cards count shared videos by the same
	// identity (Video-Index 4.5).
	Video string
}

// video is the key of the item's video for the one-per-video cap: its
// identity by content when known, else its video id (benchmarks that ship
// one clip under one name share it).
func (c *Candidate) video() string {
	if c.Video != "" {
		return c.Video
	}
	return dups.VideoIdentity(c.Item, "")
}

// template is the key of the item's question template for the
// per-template cap: its source and QuestionTemplate (the authors count
// (benchmark, template) pairs).
func (c *Candidate) template() string {
	return c.Item.Benchmark + "\x00" + c.QuestionTemplate
}

// scene is the key of the item's visual scene: Scene, else its video.
func (c *Candidate) scene() string {
	if c.Scene != "" {
		return c.Scene
	}
	return "video:" + c.video()
}

// A Pool is the screened pool selection draws from: its attackers and its
// candidates, in the order of the screen (which is the run's item order).
type Pool struct {
	Attackers  []Attacker
	Candidates []Candidate
	// Screened holds the items screening removed: they are never selected,
	// but their groups are known, so that Hardest can say a group came out
	// empty rather than leave it out without a word.
	Screened []*harness.Item
	// VideosBy says what identifies the candidates' videos for the
	// one-per-video cap when the screen carried the run's identities
	// (FromScreen: items.parquet video_identity or video_sha256); "" when
	// it carried none and the video id stands.
	VideosBy string
	// SceneGroups says, per duration group, how FromScreen clustered the
	// videos into scenes (Scenes); nil when it had no frame embeddings.
	SceneGroups []SceneGroup
	// hardness is each candidate's maximum percentile over the attackers'
	// margins (see Hardness); computed by NewPool.
	hardness []float64
	// templateGroup is how many candidates share each candidate's source
	// and question template (the authors' tgroup); computed by NewPool.
	templateGroup []int
}

// NewPool checks and indexes a pool: every candidate has an item and one
// verdict per attacker, and no item key appears twice.
func NewPool(attackers []Attacker, cands []Candidate) (*Pool, error) {
	seen := make(map[string]int, len(cands))
	for i := range cands {
		c := &cands[i]
		if c.Item == nil {
			return nil, fmt.Errorf("pool: candidate %d has no item", i)
		}
		if len(c.Verdicts) != len(attackers) {
			return nil, fmt.Errorf("pool: item %s/%s: %d verdicts for %d attackers", c.Item.Benchmark, c.Item.ID, len(c.Verdicts), len(attackers))
		}
		if j, dup := seen[c.Item.Key()]; dup {
			return nil, fmt.Errorf("pool: item %s/%s is candidates %d and %d", c.Item.Benchmark, c.Item.ID, j, i)
		}
		seen[c.Item.Key()] = i
		if c.TemplateSize < 1 {
			c.TemplateSize = 1
		}
		if c.QuestionTemplate == "" {
			c.QuestionTemplate = QuestionTemplate(c.Item.Question)
		}
	}
	p := &Pool{Attackers: attackers, Candidates: cands}
	p.hardness = hardness(p)
	p.templateGroup = templateGroups(cands)
	return p, nil
}

// TemplateGroup returns how many candidates of the pool share candidate
// i's source and question template.
func (p *Pool) TemplateGroup(i int) int { return p.templateGroup[i] }

// templateGroups counts each candidate's (source, question template) pair
// in the pool, the authors' tgroup.
func templateGroups(cands []Candidate) []int {
	n := map[string]int{}
	for i := range cands {
		n[cands[i].template()]++
	}
	out := make([]int, len(cands))
	for i := range cands {
		out[i] = n[cands[i].template()]
	}
	return out
}

// Hardness returns candidate i's maximum percentile over the screening
// steps' margins (Video-Index 5.3: "ranked by their maximum percentile over
// the five attacker margins"; hardnessAttackers): 0 is the hardest item of
// the pool, 1 the easiest. A step that did not score the candidate counts
// at its largest margin in the pool (see hardness); a pool where none of
// the steps scored anything gives every candidate 0.
func (p *Pool) Hardness(i int) float64 { return p.hardness[i] }

// hardness computes every candidate's maximum percentile, by the authors'
// rule (Video-Index's pool/select.py, attack_percentile): for each step, a
// candidate it did not score (no verdict, or no margin) takes the largest
// margin the step gave in the pool, so that a missing margin makes an item
// look easy, never hard: an item the shuffled reader could not score is not
// ranked by its other steps alone and taken first as "no attacker came
// close". A step with no margin at all in the pool (a screen without
// log-probabilities) does not enter the maximum; when no step has one,
// every candidate is 0, as the authors' attack_pct, and ties go by the
// selectors' seeded hash.
//
// The percentile of a margin is its mid-rank among the step's n margins,
// filled ones included: the share below it plus half the share equal to it,
// so equal margins get equal percentiles whatever the order of the pool.
// pandas' rank(pct=True), which the authors use, is this plus 1/(2n); after
// the filling every step has the same n, so the two give the same maximum
// step and the same order of the items.
func hardness(p *Pool) []float64 {
	out := make([]float64, len(p.Candidates))
	ms := make([]float64, len(p.Candidates))
	scored := func(v Verdict) bool { return v.Scored && !math.IsNaN(v.Margin) }
	for _, a := range hardnessAttackers(p.Attackers) {
		top, seen := math.Inf(-1), false
		for i := range p.Candidates {
			if v := p.Candidates[i].Verdicts[a]; scored(v) {
				top, seen = max(top, v.Margin), true
			}
		}
		if !seen {
			continue
		}
		for i := range p.Candidates {
			ms[i] = top
			if v := p.Candidates[i].Verdicts[a]; scored(v) {
				ms[i] = v.Margin
			}
		}
		sorted := slices.Sorted(slices.Values(ms))
		n := float64(len(sorted))
		for i, m := range ms {
			below, _ := slices.BinarySearch(sorted, m)
			upto := below
			for upto < len(sorted) && sorted[upto] == m {
				upto++
			}
			out[i] = max(out[i], (float64(below)+float64(upto-below)/2)/n)
		}
	}
	return out
}

// hardnessAttackers are the attackers whose margins rank the items: the
// five screening steps of the funnel (screen.DefaultScreeners, with
// shuffled-frames-screen-reader for the shuffled step where the pool has
// it), as the authors' worst-case attacker percentile ranks "each of the
// five screening margins" (Video-Index 5.3; their pool/select.py), so that
// a learner's or a further Video-Oasis model's margin does not make an item
// easy. A pool with none of them (a run without model readers) ranks by
// every attacker.
func hardnessAttackers(atts []Attacker) []int {
	steps := slices.Clone(screen.DefaultScreeners)
	if slices.ContainsFunc(atts, func(a Attacker) bool { return a.Name == screen.ShuffledScreenReader }) {
		steps[slices.Index(steps, "shuffled-frames-reader")] = screen.ShuffledScreenReader
	}
	var use, all []int
	for k, a := range atts {
		all = append(all, k)
		if slices.Contains(steps, a.Name) {
			use = append(use, k)
		}
	}
	if len(use) == 0 {
		return all
	}
	return use
}

// Snapshot is the SHA-256 of everything in the pool that selection, the
// gate and the registrar read, in a fixed binary layout: the attackers, and
// per candidate its item (every field of the item schema), scene, template,
// template size and verdicts. Two pools with the same snapshot give the
// same release for the same query and seed.
func (p *Pool) Snapshot() string {
	h := sha256.New()
	w := snapshotWriter{h: h}
	w.str("vidscreen-pool/4")
	w.int(len(p.Attackers))
	for _, a := range p.Attackers {
		w.str(a.Name)
		w.str(a.Version)
		w.int(int(a.Level))
		w.bool(a.Pooled)
	}
	w.int(len(p.Candidates))
	for i := range p.Candidates {
		c := &p.Candidates[i]
		it := c.Item
		for _, s := range []string{it.ID, it.Benchmark, it.Video, it.Question, it.Task, it.Group, it.VideoPath, string(it.Meta), c.Scene, c.Video, c.QuestionTemplate} {
			w.str(s)
		}
		w.int(len(it.Options))
		for _, o := range it.Options {
			w.str(o)
		}
		w.int(it.Answer)
		for _, f := range []*float64{it.Duration, it.Start, it.End} {
			w.bool(f != nil)
			if f != nil {
				w.float(*f)
			}
		}
		w.int(c.Template)
		w.int(c.TemplateSize)
		for _, v := range c.Verdicts {
			w.bool(v.Scored)
			w.bool(v.Abstained)
			w.bool(v.Significant)
			w.bool(v.Correct)
			w.bool(v.Solved)
			w.float(v.Margin)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// snapshotWriter writes length-prefixed fields, so that no two different
// pools write the same bytes.
type snapshotWriter struct {
	h   hash.Hash
	buf [8]byte
}

func (w *snapshotWriter) u64(x uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], x)
	w.h.Write(w.buf[:])
}
func (w *snapshotWriter) int(x int)       { w.u64(uint64(int64(x))) }
func (w *snapshotWriter) float(x float64) { w.u64(math.Float64bits(x)) }
func (w *snapshotWriter) str(s string)    { w.int(len(s)); w.h.Write([]byte(s)) }
func (w *snapshotWriter) bool(b bool) {
	if b {
		w.int(1)
	} else {
		w.int(0)
	}
}

// eventOf returns the event type of an item under the query's Events.
func eventOf(it *harness.Item, events string) string {
	if events == EventsGroup {
		return it.Group
	}
	return it.Task
}

// keyOf is a candidate's item key, for error messages and reports.
func keyOf(c *Candidate) string { return c.Item.Benchmark + "/" + c.Item.ID }

// joinNames lists names for a message.
func joinNames(names []string) string { return strings.Join(names, ", ") }
