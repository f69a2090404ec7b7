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
// columns (their screened verdicts: scored, not solved). The two items
// named planted-1 and planted-2 ask the same question with the same gold
// option text and are the hardest of the pool, so a selection takes them.
func attackPool(t testing.TB, n int) (*Pool, attack.Config) {
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
	planted := "Which instrument does the man on the left play after the song ends?"
	add("planted-1", "S1", planted, []string{"the drum", "the violin", "the flute", "the harp"}, 1, -5)
	add("planted-2", "S2", planted, []string{"the violin", "the harp", "the drum", "the flute"}, 0, -5)
	p, err := NewPool(atts, cs)
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// A planted shortcut: two items asking one question with one gold answer.
// On the selection as its own pool the copy attacker lends the earlier
// one's answer to the later; the gate must drop what it solves and refill.
func TestAttackTeamDropsAPlantedShortcut(t *testing.T) {
	p, cfg := attackPool(t, 60)
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
		t.Fatalf("round 0: copy solved nothing (%+v); the planted pair should fall to it", first)
	}
	final := ids(p, g.Selection.Picks)
	dropped := 0
	for _, id := range []string{"planted-1", "planted-2"} {
		if !slices.Contains(final, id) {
			dropped++
		}
	}
	if dropped == 0 {
		t.Errorf("both planted items are still in the release %v", final)
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
