package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

var (
	nouns  = []string{"dog", "cup", "kite", "boat", "lamp", "drum", "chair", "bread", "shoe", "clock", "piano", "rope"}
	verbs  = []string{"pick up", "throw", "open", "paint", "carry", "wash", "drop", "fold", "push", "lift"}
	places = []string{"kitchen", "garden", "street", "beach", "office", "garage", "stage", "forest"}
)

// attackPool builds a pool of n varied items over three sources, each on
// its own video, with the attackers of the option, text and pool levels as
// columns (their screened verdicts: scored, not solved), and pairs planted
// pairs: planted-k-1 and planted-k-2 ask one question with one gold option
// text and are the hardest of the pool, so a selection takes them.
func attackPool(t testing.TB, n int) (*Pool, attack.Config) {
	return plantedPool(t, n, 1)
}

var instruments = []string{"drum", "violin", "flute", "harp", "cello", "trumpet", "guitar", "oboe", "banjo", "organ", "lute", "horn"}

func plantedPool(t testing.TB, n, pairs int) (*Pool, attack.Config) {
	t.Helper()
	cfg := attack.DefaultConfig()
	var atts []Attacker
	for _, a := range attack.Attackers(cfg) {
		atts = append(atts, Attacker{Name: a.Name(), Level: a.Level(), Pooled: attack.Prequential(a)})
	}
	var cs []Candidate
	add := func(id, source, q string, opts []string, answer int, margin float64) {
		d := float64(5 + len(cs)%40)
		it := &harness.Item{ID: id, Benchmark: source, Video: "video-" + id, Question: q, Options: opts, Answer: answer,
			Task: []string{"action", "object"}[len(cs)%2], Duration: &d}
		vs := make([]Verdict, len(atts))
		for k := range vs {
			vs[k] = Verdict{Scored: true, Margin: margin}
		}
		cs = append(cs, Candidate{Item: it, Template: len(cs), TemplateSize: 1, Verdicts: vs})
	}
	for i := 0; i < n; i++ {
		noun, verb, place := nouns[i%len(nouns)], verbs[(i/3)%len(verbs)], places[(i/7)%len(places)]
		q := fmt.Sprintf("What does the person in the %s %s right after the %s moves (clip %d)?", place, verb, noun, i)
		opts := []string{"the " + nouns[(i+1)%len(nouns)], "the " + nouns[(i+4)%len(nouns)], "the " + nouns[(i+7)%len(nouns)], "the " + nouns[(i+10)%len(nouns)]}
		add(fmt.Sprintf("item-%03d", i), []string{"S1", "S2", "S3"}[i%3], q, opts, int(mix64(uint64(i)+99)%4), float64(1+i%17))
	}
	for k := 0; k < pairs; k++ {
		id, q := "planted", "Which instrument does the man on the left play after the song ends?"
		if pairs > 1 {
			id = fmt.Sprintf("planted-%d", k)
			q = fmt.Sprintf("Which %s does the %s woman hand over when the %s starts?", nouns[k%len(nouns)], []string{"tall", "young", "old", "smiling", "masked", "seated"}[k%6], instruments[k%len(instruments)])
		}
		a, b, c, d := "the "+instruments[(k+0)%12], "the "+instruments[(k+1)%12], "the "+instruments[(k+2)%12], "the "+instruments[(k+3)%12]
		add(id+"-1", []string{"S1", "S2", "S3"}[k%3], q, []string{a, b, c, d}, 1, -5)
		add(id+"-2", []string{"S2", "S3", "S1"}[k%3], q, []string{b, d, a, c}, 0, -5)
	}
	p, err := NewPool(atts, cs)
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// Planted shortcuts: pairs of items asking one question with one gold
// answer. On the selection as its own pool the copy attacker lends the
// earlier one's answer to the later; with ten pairs in a selection of 30 it
// is significant there, so the gate must drop what it solves and refill.
func TestAttackTeamDropsAPlantedShortcut(t *testing.T) {
	t.Parallel()
	p, cfg := plantedPool(t, 60, 10)
	team := &AttackTeam{Config: cfg, Seed: 3, Workers: 2}
	q := Query{Budget: 30, Caps: &Caps{PerVideo: 1, PerScene: 1, PerTemplate: 5, SourceShare: 1}}
	g, err := Gate(context.Background(), p, q, 3, team, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Rounds {
		t.Logf("round %d: %d selected, %d solved %v", r.Round, r.Selected, r.Solved, r.SolvedBy)
	}
	first := g.Rounds[0]
	if first.SolvedBy["copy"] == 0 {
		t.Fatalf("round 0: copy solved nothing (%+v); the planted pairs should fall to it", first)
	}
	final := ids(p, g.Selection.Picks)
	dropped := 0
	for k := 0; k < 10; k++ {
		for _, id := range []string{fmt.Sprintf("planted-%d-1", k), fmt.Sprintf("planted-%d-2", k)} {
			if !slices.Contains(final, id) {
				dropped++
			}
		}
	}
	if dropped == 0 {
		t.Errorf("every planted item is still in the release %v", final)
	}
	if len(final) != 30 {
		t.Errorf("release holds %d items, want the budget of 30 after refilling", len(final))
	}
	// The residual covers every level that ran, from the last attack.
	var levels []harness.Level
	for _, l := range g.Residual.Levels {
		levels = append(levels, l.Level)
		if math.IsNaN(l.Eps) {
			t.Errorf("level %s: eps NaN", l.Level)
		}
	}
	if !slices.Equal(levels, []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool}) {
		t.Errorf("residual levels %v", levels)
	}
	for _, a := range g.Residual.Attackers {
		if a.Rerun != p.Attackers[attackerIndex(p, a.Name)].Pooled {
			t.Errorf("%s: rerun %v", a.Name, a.Rerun)
		}
	}
}

func compose(t *testing.T, p *Pool, cfg attack.Config, q Query, seed uint64, workers int) (*Release, map[string][]byte) {
	t.Helper()
	team := &AttackTeam{Config: cfg, Seed: seed, Workers: workers}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compose(context.Background(), p, Spec{Query: q, Seed: seed, Rounds: 2, Team: team, Attack: raw, Embedder: "lexical", Rule: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range []string{ItemsFile, LockfileFile, ReportMarkdown, ReportHTML} {
		var b bytes.Buffer
		switch f {
		case ItemsFile:
			err = r.WriteItems(&b)
		case LockfileFile:
			err = r.WriteLockfile(&b)
		case ReportMarkdown:
			err = r.WriteMarkdown(&b)
		case ReportHTML:
			err = r.WriteHTML(&b)
		}
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b.Bytes()
	}
	return r, files
}

func TestReleaseNameIsStableAcrossWorkersAndChangesWithInputs(t *testing.T) {
	p, cfg := attackPool(t, 45)
	q := Query{Budget: 20}
	base, files := compose(t, p, cfg, q, 11, 1)
	again, files4 := compose(t, p, cfg, q, 11, 4)
	if base.Name != again.Name {
		t.Errorf("1 worker named the release %s, 4 workers %s", base.Name, again.Name)
	}
	for f := range files {
		if !bytes.Equal(files[f], files4[f]) {
			t.Errorf("%s differs between 1 and 4 workers", f)
		}
	}
	var lock Lockfile
	if err := json.Unmarshal(files[LockfileFile], &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Release != base.Name {
		t.Errorf("lockfile names %s, release %s", lock.Release, base.Name)
	}
	if name, err := lock.Name(); err != nil || name != base.Name {
		t.Errorf("the lockfile read back hashes to %s (%v), want %s", name, err, base.Name)
	}

	other := map[string]string{}
	r, _ := compose(t, p, cfg, q, 12, 1)
	other["another seed"] = r.Name
	r, _ = compose(t, p, cfg, Query{Budget: 21}, 11, 1)
	other["another budget"] = r.Name
	r, _ = compose(t, p, cfg, Query{Budget: 20, AdmitSuspects: true}, 11, 1)
	other["admitting suspects"] = r.Name
	cfg2 := cfg
	cfg2.K = 7
	r, _ = compose(t, p, cfg2, q, 11, 1)
	other["another attacker configuration"] = r.Name
	p2, _ := attackPool(t, 45)
	p2.Candidates[3].Verdicts[0].Margin += 0.5
	p2, _ = NewPool(p2.Attackers, p2.Candidates)
	r, _ = compose(t, p2, cfg, q, 11, 1)
	other["another pool"] = r.Name
	for what, name := range other {
		if name == base.Name {
			t.Errorf("%s gives the same name %s", what, name)
		}
	}
}

func TestReleasedItemsKeepTheirGoldText(t *testing.T) {
	p, cfg := attackPool(t, 30)
	r, _ := compose(t, p, cfg, Query{Budget: 10}, 5, 2)
	moved := 0
	for k, it := range r.Items {
		src := p.Candidates[r.Gated.Selection.Picks[k]].Item
		if it.Options[it.Answer] != src.Options[src.Answer] {
			t.Errorf("%s: released gold %q, source gold %q", it.ID, it.Options[it.Answer], src.Options[src.Answer])
		}
		if it.Benchmark != r.Name || it.ID != src.Benchmark+"/"+src.ID {
			t.Errorf("released as %s/%s", it.Benchmark, it.ID)
		}
		if it.Answer != src.Answer {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no gold answer moved: the options were not shuffled")
	}
}

func TestOptionsThatNameTheirPlaceKeepTheirOrder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		opts []string
		kept string
	}{
		{[]string{"A. a dog", "B. a cat", "C. a cow", "D. a hen"}, "letter_prefix"},
		{[]string{"a dog", "a cat", "a cow", "all of the above"}, "meta_option"},
	} {
		line, err := json.Marshal(map[string]any{"id": "1", "benchmark": "b", "video": "v", "question": "q?",
			"options": tt.opts, "answer": 2, "task": "t", "duration": 3})
		if err != nil {
			t.Fatal(err)
		}
		it, err := harness.NewJSONLReader(bytes.NewReader(line), "test.jsonl").Read()
		if err != nil {
			t.Fatal(err)
		}
		order, kept := optionOrder(it, 9)
		if kept != tt.kept || !slices.Equal(order, []int{0, 1, 2, 3}) {
			t.Errorf("%q: order %v kept %q, want the original order kept for %s", tt.opts, order, kept, tt.kept)
		}
	}
}

func TestAttackTeamRefusesAnotherVersion(t *testing.T) {
	p, cfg := attackPool(t, 10)
	p.Attackers[attackerIndex(p, "copy")].Version = "0"
	team := &AttackTeam{Config: cfg, Seed: 1}
	if _, err := team.Attack(context.Background(), p, []int{0, 1, 2}); !errors.Is(err, ErrVersion) {
		t.Errorf("a copy attacker of version 0 was re-run as this vidscreen's: %v", err)
	}
}

// verdictPool builds a pool of four four-option items, two of benchmark B
// and two of C, with the attackers the gate carries over (none re-run), and
// vs[a][i] the verdict of attacker a on item i.
func verdictPool(t *testing.T, atts []Attacker, vs [][]Verdict) *Pool {
	t.Helper()
	var cs []Candidate
	for i, b := range []string{"B", "B", "C", "C"} {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: b, Video: fmt.Sprint("v", i), Question: fmt.Sprint("q", i, "?"),
			Options: []string{"w", "x", "y", "z"}, Task: "t"}
		c := Candidate{Item: it, TemplateSize: 1, Template: i}
		for a := range atts {
			c.Verdicts = append(c.Verdicts, vs[a][i])
		}
		cs = append(cs, c)
	}
	p, err := NewPool(atts, cs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A carried-over verdict drops an item only on a benchmark whose card finds
// its attacker significant (Video-Index 5.1, as screening does): the demo
// release dropped items for question-match on a benchmark where it was not.
func TestCarriedVerdictsCountOnlyWhereSignificant(t *testing.T) {
	t.Parallel()
	solved := func(sig bool) Verdict {
		return Verdict{Scored: true, Correct: true, Solved: true, Margin: 0, Significant: sig}
	}
	p := verdictPool(t, []Attacker{{Name: "question-match", Level: harness.LevelText}},
		[][]Verdict{{solved(true), solved(true), solved(false), solved(false)}})
	team := &AttackTeam{Config: attack.DefaultConfig(), Seed: 1}
	att, err := team.Attack(context.Background(), p, []int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range [][]string{{"question-match"}, {"question-match"}, nil, nil} {
		if !slices.Equal(att.Solvers[k], want) {
			t.Errorf("item %d (%s): solvers %v, want %v", k, p.Candidates[k].Item.Benchmark, att.Solvers[k], want)
		}
	}
	r := att.Attackers[0]
	if r.Rerun || r.Solved != 2 || r.Ignored != 2 || !slices.Equal(r.CountsOn, []string{"B"}) {
		t.Errorf("residual %+v: want carried over, 2 solved on B, 2 solved where not significant", r)
	}
}

// The residual counts an abstention as a chance-level outcome, never as
// its seeded guess (DESIGN.md, the attack pyramid; issue 20.4). By hand: a
// right guess and a wrong guess (abstained) count 1/4 each, one right and
// one wrong answer 1 and 0: accuracy (0.25 + 0.25 + 1 + 0) / 4 = 0.375,
// margin 0.125 over the chance of 0.25; counting the guesses would give 0.5.
func TestResidualCountsAbstentionsAtChance(t *testing.T) {
	t.Parallel()
	p := verdictPool(t, []Attacker{{Name: "blind-reader", Level: harness.LevelText}},
		[][]Verdict{{
			{Scored: true, Abstained: true, Correct: true, Significant: true},
			{Scored: true, Abstained: true, Significant: true},
			{Scored: true, Correct: true, Margin: 2, Solved: true, Significant: true},
			{Scored: true, Margin: -1, Significant: true},
		}})
	team := &AttackTeam{Config: attack.DefaultConfig(), Seed: 1}
	att, err := team.Attack(context.Background(), p, []int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	r := att.Attackers[0]
	if r.N != 4 || !approx(r.Accuracy, 0.375) || !approx(r.Chance, 0.25) || !approx(r.Margin, 0.125) {
		t.Errorf("residual %+v: want n 4, accuracy 0.375, chance 0.25, margin 0.125", r)
	}
	if r.Solved != 1 || len(att.Solvers[0]) != 0 {
		t.Errorf("residual %+v, solvers %v: a guess must not solve", r, att.Solvers)
	}
}

// A re-run learner drops items only where it is significant on the
// selection (exact test, Holm over the selection's attackers): one lucky
// right answer of eight four-option items (p = 1 - 0.75^8 = 0.90) drops
// nothing; eight of eight (p = 0.25^8 = 1.5e-5) drop all eight.
func TestRerunLearnerDropsOnlyWhereSignificant(t *testing.T) {
	t.Parallel()
	var cs []Candidate
	for i := 0; i < 8; i++ {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprint("v", i), Question: fmt.Sprint("q", i, "?"),
			Options: []string{"w", "x", "y", "z"}, Task: "t"}
		cs = append(cs, Candidate{Item: it, TemplateSize: 1, Template: i, Verdicts: []Verdict{{}}})
	}
	p, err := NewPool([]Attacker{{Name: "knn-vote", Level: harness.LevelPool, Pooled: true}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	picks := []int{0, 1, 2, 3, 4, 5, 6, 7}
	items := make([]*harness.Item, len(picks))
	for k, i := range picks {
		items[k] = p.Candidates[i].Item
	}
	for _, tt := range []struct {
		right, solved, ignored int
		p                      float64
	}{{1, 0, 1, 1 - math.Pow(0.75, 8)}, {8, 8, 0, math.Pow(0.25, 8)}} {
		att := judge(p, picks, items, nil, func(k, a int) (Verdict, bool) {
			ok := k < tt.right
			return Verdict{Scored: true, Correct: ok, Solved: ok}, true
		})
		r := att.Attackers[0]
		if r.Solved != tt.solved || r.Ignored != tt.ignored || !approx(r.PValue, sig6(tt.p)) {
			t.Errorf("%d of 8 right: %+v, want %d solved, %d ignored, p %.6f", tt.right, r, tt.solved, tt.ignored, tt.p)
		}
	}
}

// fakeReaders answers full-video-reader from letter scores it makes from
// the options it is shown: the gold text (by the source item) gets log
// 0.9, the others log(0.1/3). With origin set it scores instead the gold's
// position in the source order, as a reader shown the unshuffled options.
type fakeReaders struct {
	gold   map[string]string // released id -> gold option text
	answer map[string]int    // released id -> gold position in the source order
	origin bool
	seen   [][]string
}

func (f *fakeReaders) Attackers() []string { return []string{"full-video-reader"} }

func (f *fakeReaders) Visual(_ context.Context, items []*harness.Item) ([]*attack.Visual, error) {
	out := make([]*attack.Visual, len(items))
	for k, it := range items {
		f.seen = append(f.seen, slices.Clone(it.Options))
		sc := make([]float64, len(it.Options))
		for j, o := range it.Options {
			sc[j] = math.Log(0.1 / 3)
			if (!f.origin && o == f.gold[it.ID]) || (f.origin && j == f.answer[it.ID]) {
				sc[j] = math.Log(0.9)
			}
		}
		out[k] = &attack.Visual{VLM: map[string][]float64{attack.VLMInOrder: sc}}
	}
	return out, nil
}

// With Readers, full-video-reader re-runs on the selection with its options
// in the released (shuffled) order, and is judged by the solve rule there:
// a reader that finds the gold text wherever the shuffle put it solves
// every item; one that answers the gold's source position is right only
// where the shuffle left it in place. Without Readers its screened
// verdicts are carried over.
func TestAttackTeamRerunsTheVLMOnTheReleasedOrder(t *testing.T) {
	t.Parallel()
	var cs []Candidate
	gold, answer := map[string]string{}, map[string]int{}
	for i := 0; i < 12; i++ {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprint("v", i), Question: fmt.Sprint("what is shown in clip ", i, "?"),
			Options: []string{"a red ball", "a blue cup", "a green hat", "a white dog"}, Answer: i % 4, Task: "t"}
		gold["B/"+it.ID], answer["B/"+it.ID] = it.Options[it.Answer], it.Answer
		cs = append(cs, Candidate{Item: it, TemplateSize: 1, Template: i, Verdicts: []Verdict{{Scored: true, Margin: -1}}})
	}
	p, err := NewPool([]Attacker{{Name: "full-video-reader", Level: harness.LevelOrder}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	picks := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	const seed = 3
	moved := 0
	for _, i := range picks {
		src := p.Candidates[i].Item
		order, _ := optionOrder(src, seed)
		if order[src.Answer] != src.Answer {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("the shuffle moved no gold option: the test shows nothing")
	}
	f := &fakeReaders{gold: gold, answer: answer}
	cfg := attack.DefaultConfig()
	cfg.Levels = append(cfg.Levels, harness.LevelFrame, harness.LevelOrder)
	team := &AttackTeam{Config: cfg, Seed: seed, Readers: f}
	att, err := team.Attack(context.Background(), p, picks)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range picks {
		src := p.Candidates[i].Item
		order, _ := optionOrder(src, seed)
		want := make([]string, len(order))
		for j, o := range order {
			want[j] = src.Options[o]
		}
		if !slices.Equal(f.seen[k], want) {
			t.Errorf("item %d: the reader saw %q, want the released order %q", k, f.seen[k], want)
		}
		if !slices.Equal(att.Solvers[k], []string{"full-video-reader"}) {
			t.Errorf("item %d: solvers %v, want full-video-reader", k, att.Solvers[k])
		}
	}
	if r := att.Attackers[0]; !r.Rerun || r.N != 12 || r.Solved != 12 || !r.Significant {
		t.Errorf("residual %+v: want re-run, 12 scored, 12 solved, significant", r)
	}
	// The source positions are right only where the gold stayed.
	f = &fakeReaders{gold: gold, answer: answer, origin: true}
	team.Readers = f
	if att, err = team.Attack(context.Background(), p, picks); err != nil {
		t.Fatal(err)
	}
	right := 0
	for k := range picks {
		if v := att.Attackers[0]; v.Rerun && slices.Contains(att.Solvers[k], "full-video-reader") {
			right++
		}
	}
	if r := att.Attackers[0]; !r.Rerun || r.Solved+r.Ignored != len(picks)-moved || right > len(picks)-moved {
		t.Errorf("a reader of the source positions: %+v (%d items solved); want %d right, the golds the shuffle left in place", r, right, len(picks)-moved)
	}
	// Without Readers the screened verdicts are carried over.
	team.Readers = nil
	if att, err = team.Attack(context.Background(), p, picks); err != nil {
		t.Fatal(err)
	}
	if r := att.Attackers[0]; r.Rerun || r.Solved != 0 {
		t.Errorf("without Readers: %+v, want carried over, nothing solved", r)
	}
}
