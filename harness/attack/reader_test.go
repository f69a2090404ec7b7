package attack_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/solve"
	"github.com/vidscreen/vidscreen/models/letters"
)

// fakeReader scores prompts by hand: the option letter whose text appears
// in the prompt's first line wins with log p = log 0.7, the others share
// the rest. Prompts longer than maxLen bytes are refused as too long.
type fakeReader struct {
	maxLen int
	mu     sync.Mutex
	seen   []string
}

func (f *fakeReader) Encode(p letters.Prompt) ([]int, error) {
	if p.Options < 2 {
		return nil, errors.New("no options")
	}
	if f.maxLen > 0 && len(p.Text) > f.maxLen {
		return nil, errors.New("too long")
	}
	return make([]int, len(p.Text)), nil
}

func (f *fakeReader) Score(ctx context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for i, p := range ps {
		f.mu.Lock()
		f.seen = append(f.seen, p.Text)
		f.mu.Unlock()
		// What the reader is given first: the context, else the question.
		first := p.Parts.Context
		if first == "" {
			first = p.Parts.Question
		}
		out[i] = make([]float64, p.Options)
		for j := range out[i] {
			out[i][j] = math.Log(0.3 / float64(p.Options-1))
		}
		for j, o := range p.Parts.Options {
			if first != "" && strings.Contains(first, o) {
				out[i][j] = math.Log(0.7)
			}
		}
	}
	return out, nil
}

func readerConfig(r attack.LetterReader) attack.Config {
	cfg := attack.DefaultConfig()
	cfg.Levels = harness.Levels()
	cfg.Roles = []string{attack.RoleImageText, attack.RoleTextEmbed, attack.RoleCaptioner, attack.RoleLMReader}
	cfg.Reader = r
	return cfg
}

// TestReadersByHand: the fake reader favours the option named in what the
// prompt gives first (its context, else its question). The options-only
// prompt has neither, so it matches nothing: every letter ties and the
// reader abstains. The blind prompt's question names option B: B wins with
// log p = log 0.7, a margin of log 0.7 - log 0.1 = log 7 over each other of
// four options. For the captions reader the test checks what its prompt
// holds, in the authors' wording: the numbered captions, then the question
// and the options.
func TestReadersByHand(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "is it the red ball", Options: []string{"blue cube", "red ball", "green cone", "yellow car"}, Answer: 1}
	fr := &fakeReader{}
	cfg := readerConfig(fr)
	s := &attack.Stream{Seed: 1, Items: []*harness.Item{it}, Visual: []*attack.Visual{{CaptionTexts: []string{"a green cone on a table", "a hand"}}}}
	ctx := context.Background()

	preds, err := frameAttacker(t, cfg, "options-reader").Attack(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if !preds[0].Abstain {
		t.Errorf("options-only reader answered %+v from a prompt without the question", preds[0])
	}
	if strings.Contains(fr.seen[0], "Question") || !strings.Contains(fr.seen[0], "B. red ball") {
		t.Errorf("options-only prompt:\n%s", fr.seen[0])
	}

	preds, err = frameAttacker(t, cfg, "blind-reader").Attack(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	p := preds[0]
	if p.Abstain || p.Choice != 1 {
		t.Fatalf("blind reader: %+v, want B", p)
	}
	var others float64
	for j, v := range p.Scores {
		if j != 1 {
			others += v / 3
		}
	}
	if margin := p.Scores[1] - others; math.Abs(margin-math.Log(7)) > 1e-12 {
		t.Errorf("margin %v, want log 7", margin)
	}

	if _, err := frameAttacker(t, cfg, "captions-reader").Attack(ctx, s); err != nil {
		t.Fatal(err)
	}
	last := fr.seen[len(fr.seen)-1]
	for _, want := range []string{"You are given short captions of 2 frames sampled from a video", "Frame captions:\nFrame 1: a green cone on a table\nFrame 2: a hand\n\n", "Question: is it the red ball\n", "D. yellow car\nAnswer with the option letter only.\nAnswer:"} {
		if !strings.Contains(last, want) {
			t.Errorf("captions prompt lacks %q:\n%s", want, last)
		}
	}
}

// TestCaptionsReaderShortensToFit: with 8 captions and a reader that takes
// prompts no longer than the one with 2 captions, the reader drops every
// second caption (8 -> 4 -> 2) until the prompt fits, keeping time order;
// an item whose video failed is a seeded guess without a prompt.
func TestCaptionsReaderShortensToFit(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "q", Options: []string{"a", "b"}}
	bad := &harness.Item{ID: "2", Benchmark: "B", Question: "q", Options: []string{"a", "b"}}
	var caps []string
	for _, c := range []string{"zero", "one", "two", "three", "four", "five", "six", "seven"} {
		caps = append(caps, "caption number "+c+" of the clip")
	}
	two := letters.New(letters.Parts{Kind: letters.KindFrameCaptions, Question: "q", Options: []string{"a", "b"}, Captions: []string{caps[0], caps[4]}}).Text
	fr := &fakeReader{maxLen: len(two)}
	s := &attack.Stream{Seed: 1, Items: []*harness.Item{it, bad}, Visual: []*attack.Visual{{CaptionTexts: caps}, {Failure: "missing"}}}
	preds, err := frameAttacker(t, readerConfig(fr), "captions-reader").Attack(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.seen) != 1 {
		t.Fatalf("%d prompts scored, want 1 (the failed video gets none)", len(fr.seen))
	}
	got := fr.seen[0]
	if got != two || !strings.Contains(got, "Frame 1: caption number zero of the clip\nFrame 2: caption number four of the clip\n\nQuestion") {
		t.Errorf("prompt (%d bytes):\n%s", len(got), got)
	}
	if !preds[1].Abstain {
		t.Errorf("item with a failed video: %+v", preds[1])
	}
}

// downReader is a served reader whose server failed on every prompt: it
// gives no rows.
type downReader struct{ fakeReader }

func (d *downReader) Score(ctx context.Context, ps []letters.Prompt) ([][]float64, error) {
	return make([][]float64, len(ps)), nil
}

// TestReaderServerFailure: a prompt the reader was asked and gave no row
// for is an abstention marked with letters.FailureServer (the item fails;
// its answer is not stored), not a plain guess.
func TestReaderServerFailure(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "q", Options: []string{"a", "b"}}
	s := &attack.Stream{Seed: 1, Items: []*harness.Item{it}}
	preds, err := frameAttacker(t, readerConfig(&downReader{}), "blind-reader").Attack(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !preds[0].Abstain || preds[0].Failure != letters.FailureServer {
		t.Errorf("blind reader on a failed server: %+v, want an abstention failed for %q", preds[0], letters.FailureServer)
	}
	preds, err = frameAttacker(t, readerConfig(&fakeReader{}), "blind-reader").Attack(context.Background(), s)
	if err != nil || preds[0].Failure != "" {
		t.Errorf("blind reader on a healthy reader: %+v, %v", preds[0], err)
	}
}

// rowsReader answers every prompt with the same row of letter scores.
type rowsReader struct{ row []float64 }

func (r rowsReader) Encode(letters.Prompt) ([]int, error) { return nil, nil }

func (r rowsReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for i := range out {
		out[i] = r.row
	}
	return out, nil
}

// TestReaderMarksFlooredAnswers: a reader answer with a score that is the
// floor log(1e-6) bit for bit (a served reader's letter missing from its
// server's top_logprobs) is marked Floored, whether it decided or tied;
// one whose lowest score is near the floor but not it (an ONNX reader's
// own value) is not.
func TestReaderMarksFlooredAnswers(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "q", Options: []string{"a", "b", "c"}}
	for _, tt := range []struct {
		name             string
		row              []float64
		floored, abstain bool
	}{
		{"every letter returned", []float64{math.Log(0.6), math.Log(0.3), math.Log(0.1)}, false, false},
		{"one letter floored", []float64{math.Log(0.9), math.Log(0.1), solve.LogFloor}, true, false},
		{"every letter floored", []float64{solve.LogFloor, solve.LogFloor, solve.LogFloor}, true, true},
		{"below the floor, the model's own", []float64{math.Log(0.9), math.Log(0.1), math.Nextafter(solve.LogFloor, -20)}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range []string{"options-reader", "blind-reader"} {
				s := &attack.Stream{Seed: 1, Items: []*harness.Item{it}}
				preds, err := frameAttacker(t, readerConfig(rowsReader{tt.row}), name).Attack(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				if preds[0].Floored != tt.floored || preds[0].Abstain != tt.abstain {
					t.Errorf("%s: %+v, want floored %v, abstained %v", name, preds[0], tt.floored, tt.abstain)
				}
			}
		})
	}
}
