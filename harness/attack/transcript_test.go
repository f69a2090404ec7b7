package attack_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

func asrConfig(r attack.LetterReader) attack.Config {
	cfg := readerConfig(r)
	cfg.Roles = append(cfg.Roles, attack.RoleASR)
	return cfg
}

// TestTranscriptAttackersByHand checks both transcript attackers on
// transcripts whose answers are worked out by hand: the matcher picks the
// option nearest the transcript's embedding; the reader, with fakeReader,
// the option its context (the transcript) names, and the transcript comes first
// in the prompt. Items without a transcript to read (no audio stream,
// nothing heard, a failed video) are abstentions.
func TestTranscriptAttackersByHand(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "Which colour does the soundtrack name?", Options: []string{"blue", "pink", "grey", "cyan"}, Answer: 1}
	// Options on the axes; the transcript at cosine 0.8 to pink, 0.6 to
	// cyan: logits 16 and 12 at the captions' temperature 20, so pink wins
	// with log p = -log(1 + e^-4 + 2 e^-16).
	opts := rows([]float32{1, 0, 0, 0}, []float32{0, 1, 0, 0}, []float32{0, 0, 1, 0}, []float32{0, 0, 0, 1})
	heard := &attack.Transcript{Text: "pink", Embedding: []float32{0, 0.8, 0, 0.6}, Options: opts}
	cases := []struct {
		name    string
		v       *attack.Visual
		abstain bool
	}{
		{"heard", &attack.Visual{Transcript: heard}, false},
		{"no audio stream", &attack.Visual{Transcript: &attack.Transcript{NoStream: true}}, true},
		{"nothing heard", &attack.Visual{Transcript: &attack.Transcript{}}, true},
		{"video failed", &attack.Visual{Failure: "corrupt", Transcript: heard}, true},
		{"no transcript stage", &attack.Visual{}, true},
	}
	fr := &fakeReader{}
	cfg := asrConfig(fr)
	for _, c := range cases {
		for _, name := range []string{"transcript-match", "transcript-reader"} {
			s := &attack.Stream{Seed: 3, Items: []*harness.Item{it}, Visual: []*attack.Visual{c.v}}
			a := frameAttacker(t, cfg, name)
			if !attack.DiagnosticOnly(a) {
				t.Errorf("%s: not diagnostic only", name)
			}
			preds, err := a.Attack(context.Background(), s)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, name, err)
			}
			p := preds[0]
			if p.Abstain != c.abstain {
				t.Errorf("%s %s: abstain %v, want %v", c.name, name, p.Abstain, c.abstain)
			}
			if c.abstain || p.Choice != 1 {
				if !c.abstain {
					t.Errorf("%s %s: chose %d, want pink (1)", c.name, name, p.Choice)
				}
				continue
			}
			want := -math.Log(1 + math.Exp(-4) + 2*math.Exp(-16))
			if name == "transcript-reader" {
				want = math.Log(0.7)
			}
			if math.Abs(p.Scores[1]-want) > 1e-6 {
				t.Errorf("%s %s: log p(pink) = %.6f, want %.6f", c.name, name, p.Scores[1], want)
			}
		}
	}
	if len(fr.seen) != 1 || !strings.Contains(fr.seen[0], "INSTEAD of the video itself. Answer the question based on the transcript.\n\nTranscript: pink\n\nQuestion: ") {
		t.Errorf("reader prompts %q: want one, the transcript first", fr.seen)
	}
}

// TestTranscriptAttackersNeedTheASRRole: without asr neither runs nor is
// reported skipped (the role is optional, as screen_reader); with asr and
// no lm_reader the reader is skipped naming lm_reader.
func TestTranscriptAttackersNeedTheASRRole(t *testing.T) {
	t.Parallel()
	names := func(cfg attack.Config) string {
		var out []string
		for _, a := range attack.Attackers(cfg) {
			if strings.HasPrefix(a.Name(), "transcript-") {
				out = append(out, a.Name())
			}
		}
		return strings.Join(out, ",")
	}
	cfg := readerConfig(&fakeReader{})
	if got := names(cfg); got != "" {
		t.Errorf("without asr: %s run", got)
	}
	for _, l := range attack.Skipped(cfg) {
		if strings.Contains(l, "transcript-") {
			t.Errorf("without asr: %q", l)
		}
	}
	if got := names(asrConfig(&fakeReader{})); got != "transcript-match,transcript-reader" {
		t.Errorf("with asr: %q", got)
	}
	noLM := asrConfig(nil)
	noLM.Roles = []string{attack.RoleImageText, attack.RoleASR}
	if got := names(noLM); got != "transcript-match" {
		t.Errorf("asr without lm_reader: %q run", got)
	}
	if sk := strings.Join(attack.Skipped(noLM), "\n"); !strings.Contains(sk, "transcript-reader skipped: the models directory has no lm_reader role") {
		t.Errorf("skipped lines:\n%s", sk)
	}
}
