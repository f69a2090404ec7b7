package release

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/models/letters"
)

// letterA is an lm_reader that reads the captions: it puts 0.9 on the
// option whose text a caption holds, and otherwise on "A", a letter bias,
// the shortcut an option shuffle removes. It records the prompts it scored.
type letterA struct {
	mu      sync.Mutex
	prompts []string
}

func (*letterA) Encode(p letters.Prompt) ([]int, error) {
	return make([]int, len(p.Text)/4+1), nil
}

func (r *letterA) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([][]float64, len(ps))
	for k, p := range ps {
		r.prompts = append(r.prompts, p.Text)
		out[k] = make([]float64, p.Options)
		for j := range out[k] {
			out[k][j] = math.Log(0.1 / float64(p.Options-1))
		}
		caps, rest, _ := strings.Cut(p.Text, "Question:")
		pick := 0
		for j := range p.Options {
			_, after, _ := strings.Cut(rest, fmt.Sprintf("\n%c. ", 'A'+j))
			if text, _, _ := strings.Cut(after, "\n"); text != "" && strings.Contains(caps, text) {
				pick = j
			}
		}
		out[k][pick] = math.Log(0.9)
	}
	return out, nil
}

// captionReaders serves captions-reader each clip's captions (by the
// source video).
type captionReaders struct{ captions map[string][]string }

func (*captionReaders) Attackers() []string { return []string{"captions-reader"} }

func (c *captionReaders) Visual(_ context.Context, items []*harness.Item) ([]*attack.Visual, error) {
	out := make([]*attack.Visual, len(items))
	for k, it := range items {
		out[k] = &attack.Visual{CaptionTexts: c.captions[it.Video]}
	}
	return out, nil
}

// The audited order put every gold at A, so captions-reader, which finds
// the answer in the captions of every second clip and otherwise answers A,
// solved all 16 items there and its card found it significant. With
// Readers the red team asks it again on the released order: it drops
// exactly the items a fresh audit of the released items (captions-reader
// run on them alone) answers, those the captions carry and those whose
// gold the shuffle left at A; carried over, it would drop all 16.
func TestAttackTeamRerunsCaptionsReaderOnTheReleasedOrder(t *testing.T) {
	t.Parallel()
	const n, seed = 16, 5
	var cs []Candidate
	captions := map[string][]string{}
	for i := range n {
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprint("v", i), Task: "t",
			Question: fmt.Sprint("what is on the table in clip ", i, "?"),
			Options:  []string{"a red ball", "a blue cup", "a green hat", "a white dog"}, Answer: 0}
		captions[it.Video] = []string{fmt.Sprint("a table in room ", i), "a hand reaches in"}
		if i%2 == 0 { // the captions carry the answer of every second item
			captions[it.Video][1] = "a hand puts down " + it.Options[0]
		}
		cs = append(cs, Candidate{Item: it, TemplateSize: 1, Template: i,
			Verdicts: []Verdict{{Scored: true, Correct: true, Margin: 2, Solved: true, Significant: true}}})
	}
	p, err := NewPool([]Attacker{{Name: "captions-reader", Level: harness.LevelFrame}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	picks := make([]int, n)
	for i := range picks {
		picks[i] = i
	}
	cfg := attack.DefaultConfig()
	cfg.Levels = append(cfg.Levels, harness.LevelFrame)

	// A fresh audit of the released order: captions-reader alone on the
	// released items with the same captions and reader.
	released := make([]*harness.Item, n)
	for k, i := range picks {
		order, _ := optionOrder(p.Candidates[i].Item, seed)
		if released[k], err = releasedItem(p.Candidates[i].Item, releasePool, order, ""); err != nil {
			t.Fatal(err)
		}
	}
	fcfg := cfg
	fcfg.Roles, fcfg.Reader = []string{attack.RoleCaptioner, attack.RoleLMReader}, &letterA{}
	var fresh attack.Attacker
	for _, a := range attack.Attackers(fcfg) {
		if a.Name() == "captions-reader" {
			fresh = a
		}
	}
	vis, _ := (&captionReaders{captions: captions}).Visual(context.Background(), released)
	preds, err := fresh.Attack(context.Background(), &attack.Stream{Items: released, Visual: vis, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	var want []bool
	right := 0
	for k, pr := range preds {
		ok := !pr.Abstain && pr.Choice == released[k].Answer
		want = append(want, ok)
		if ok {
			right++
		}
	}
	if right <= n/2 || right == n {
		t.Fatalf("a fresh audit answers %d of %d: want the 8 the captions carry and some the shuffle left at A", right, n)
	}

	reader := &letterA{}
	team := &AttackTeam{Config: cfg, Seed: seed, Readers: &captionReaders{captions: captions}, Reader: reader}
	att, err := team.Attack(context.Background(), p, picks)
	if err != nil {
		t.Fatal(err)
	}
	r := att.Attackers[0]
	if !r.Rerun || r.N != n {
		t.Fatalf("residual %+v: want captions-reader re-run on %d items", r, n)
	}
	if !r.Significant || r.Solved != right || r.Ignored != 0 {
		t.Errorf("residual %+v: want significant, %d solved, the items a fresh audit answers", r, right)
	}
	for k := range picks {
		if got := slices.Contains(att.Solvers[k], "captions-reader"); got != want[k] {
			t.Errorf("item %d (released answer %c): dropped %v, a fresh audit of the released order answers it: %v", k, 'A'+released[k].Answer, got, want[k])
		}
	}
	for _, pr := range reader.prompts {
		if !strings.Contains(pr, "a table in room ") {
			t.Fatalf("a prompt without the clip's captions: %q", pr)
		}
	}
	// Carried over, the audited verdicts drop every item.
	team.Readers = nil
	if att, err = team.Attack(context.Background(), p, picks); err != nil {
		t.Fatal(err)
	}
	if r := att.Attackers[0]; r.Rerun || r.Solved != n {
		t.Errorf("carried over: %+v, want all %d solved", r, n)
	}
}
