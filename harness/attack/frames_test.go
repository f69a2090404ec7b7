package attack_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/kernels"
)

// rows makes a matrix of the given (unit) rows.
func rows(rs ...[]float32) *kernels.Matrix {
	m := kernels.NewMatrix(len(rs), len(rs[0]))
	for i, r := range rs {
		copy(m.Row(i), r)
	}
	return m
}

// videoConfig enables the frame and order levels with every role present.
func videoConfig(k int) attack.Config {
	cfg := attack.DefaultConfig()
	cfg.Levels = []harness.Level{harness.LevelFrame, harness.LevelOrder}
	cfg.Roles = []string{attack.RoleImageText, attack.RoleTextEmbed, attack.RoleCaptioner, attack.RoleVLMReader}
	cfg.BagK = k
	return cfg
}

func frameAttacker(t *testing.T, cfg attack.Config, name string) attack.Attacker {
	t.Helper()
	for _, a := range attack.Attackers(cfg) {
		if a.Name() == name {
			return a
		}
	}
	t.Fatalf("no attacker %q", name)
	return nil
}

// TestFrameAttackersByHand checks each frame and order attacker on features
// whose answer is worked out by hand in the case's comment.
func TestFrameAttackersByHand(t *testing.T) {
	t.Parallel()
	three := []string{"a", "b", "c"}
	tests := []struct {
		name     string
		attacker string
		k        int
		v        *attack.Visual
		options  []string
		want     int
		// wantScore, when not NaN, is the log-probability of the chosen option.
		wantScore float64
	}{
		{
			// Centre (1,0); options at cosines 0, 0.6, 1: logits 0, 60, 100 at
			// scale 100, so option 2 wins with log p = -log(1+e^-40+e^-100).
			name: "centre frame picks the option text nearest the centre frame", attacker: "centre-frame",
			v: &attack.Visual{Centre: []float32{1, 0}, Scale: 100,
				Options:         rows([]float32{0, 1}, []float32{0.6, 0.8}, []float32{1, 0}),
				QuestionOptions: rows([]float32{1, 0}, []float32{0, 1}, []float32{0, 1})},
			options: three, want: 2, wantScore: -math.Log1p(math.Exp(-40) + math.Exp(-100)),
		},
		{
			// The same centre against question+option texts: cosines 1, 0, 0,
			// so option 0 wins with log p = -log(1+2e^-100).
			name: "centre frame with the question reads the question+option embeddings", attacker: "centre-frame-qa",
			v: &attack.Visual{Centre: []float32{1, 0}, Scale: 100,
				Options:         rows([]float32{0, 1}, []float32{0.6, 0.8}, []float32{1, 0}),
				QuestionOptions: rows([]float32{1, 0}, []float32{0, 1}, []float32{0, 1})},
			options: three, want: 0, wantScore: -math.Log1p(2 * math.Exp(-100)),
		},
		{
			// SigLIP's rule: the same centre and options at scale 10, bias
			// -5: logits -5, 1, 5; option 2 wins with its own sigmoid,
			// log p = -log(1+e^-5), whatever the other options score.
			name: "centre frame under SigLIP's sigmoid scores each option on its own", attacker: "centre-frame",
			v: &attack.Visual{Centre: []float32{1, 0}, Scale: 10, Bias: -5, Sigmoid: true,
				Options: rows([]float32{0, 1}, []float32{0.6, 0.8}, []float32{1, 0})},
			options: three, want: 2, wantScore: -math.Log1p(math.Exp(-5)),
		},
		{
			// Bag of frames (max) under the sigmoid: the features of the
			// max case below at scale 1, bias 0: B's max cosine 1 gives
			// log sigmoid(1).
			name: "bag of frames under SigLIP's sigmoid", attacker: "bag-of-frames-max", k: 2,
			v: &attack.Visual{Scale: 1, Sigmoid: true, Question: []float32{0.6, 0.8, 0},
				Bag:     rows([]float32{0, 0, 1}, []float32{1, 0, 0}, []float32{0, 1, 0}),
				Options: rows([]float32{0, 0, 1}, []float32{1, 0, 0}, []float32{0.6, 0.8, 0})},
			options: three, want: 1, wantScore: -math.Log1p(math.Exp(-1)),
		},
		{
			// Frames f0=(0,0,1), f1=(1,0,0), f2=(0,1,0); question (0.6,0.8,0)
			// has cosines 0, 0.6, 0.8, so k=2 keeps f2 and f1. Option A
			// (0,0,1) only matches the dropped f0: mean 0. B (1,0,0): cosines
			// 0 and 1, mean 0.5. C (0.6,0.8,0): 0.8 and 0.6, mean 0.7. C wins;
			// logits 0, 0.5, 0.7 at scale 1.
			name: "bag of frames (mean) averages over the question's top-k frames", attacker: "bag-of-frames-mean", k: 2,
			v: &attack.Visual{Scale: 1, Question: []float32{0.6, 0.8, 0},
				Bag:     rows([]float32{0, 0, 1}, []float32{1, 0, 0}, []float32{0, 1, 0}),
				Options: rows([]float32{0, 0, 1}, []float32{1, 0, 0}, []float32{0.6, 0.8, 0})},
			options: three, want: 2, wantScore: 0.7 - math.Log(math.Exp(0)+math.Exp(0.5)+math.Exp(0.7)),
		},
		{
			// The same features by the maximum: A 0, B max(0,1) = 1, C
			// max(0.8,0.6) = 0.8: B wins.
			name: "bag of frames (max) takes the best of the top-k frames", attacker: "bag-of-frames-max", k: 2,
			v: &attack.Visual{Scale: 1, Question: []float32{0.6, 0.8, 0},
				Bag:     rows([]float32{0, 0, 1}, []float32{1, 0, 0}, []float32{0, 1, 0}),
				Options: rows([]float32{0, 0, 1}, []float32{1, 0, 0}, []float32{0.6, 0.8, 0})},
			options: three, want: 1, wantScore: 1 - math.Log(math.Exp(0)+math.Exp(1)+math.Exp(0.8)),
		},
		{
			// Captions (1,0) and (0.6,0.8); option (1,0) has mean cosine
			// (1+0.6)/2 = 0.8, option (0,1) (0+0.8)/2 = 0.4; at temperature
			// 20 the logits are 16 and 8: log p = -log(1+e^-8).
			name: "captions match picks the option the captions resemble most", attacker: "captions-match",
			v: &attack.Visual{Captions: rows([]float32{1, 0}, []float32{0.6, 0.8}),
				OptionTexts: rows([]float32{1, 0}, []float32{0, 1})},
			options: []string{"yes", "no"}, want: 0, wantScore: -math.Log1p(math.Exp(-8)),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := &harness.Item{ID: "1", Benchmark: "B", Question: "q", Options: tc.options}
			s := &attack.Stream{Seed: 1, Items: []*harness.Item{it}, Visual: []*attack.Visual{tc.v}}
			preds, err := frameAttacker(t, videoConfig(tc.k), tc.attacker).Attack(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			p := preds[0]
			if p.Abstain || p.Choice != tc.want {
				t.Fatalf("choice %d (abstain %v), want %d; scores %v", p.Choice, p.Abstain, tc.want, p.Scores)
			}
			if got := p.Scores[p.Choice]; math.Abs(got-tc.wantScore) > 1e-6 {
				t.Errorf("log p(choice) = %.9g, want %.9g", got, tc.wantScore)
			}
		})
	}
}

func TestFrameAttackersAbstainOnFailedVideos(t *testing.T) {
	t.Parallel()
	cfg := videoConfig(0)
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "q", Options: []string{"a", "b", "c"}}
	s := &attack.Stream{Seed: 3, Items: []*harness.Item{it}, Visual: []*attack.Visual{{Failure: "corrupt"}}}
	for _, a := range attack.Attackers(cfg) {
		preds, err := a.Attack(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
		if !preds[0].Abstain {
			t.Errorf("%s answered an item whose video failed: %+v", a.Name(), preds[0])
		}
	}
}

func TestFrameAttackersWithoutTheirRoleAreSkippedByName(t *testing.T) {
	t.Parallel()
	cfg := videoConfig(0)
	cfg.Roles = []string{attack.RoleImageText}
	var names []string
	for _, a := range attack.Attackers(cfg) {
		names = append(names, a.Name())
	}
	if want := "centre-frame,centre-frame-qa,bag-of-frames-mean,bag-of-frames-max"; strings.Join(names, ",") != want {
		t.Errorf("attackers %v, want %s", names, want)
	}
	skipped := attack.Skipped(cfg)
	want := []struct{ attacker, role string }{
		{"captions-match", "captioner"}, {"captions-reader", "captioner"}, {"centre-frame-reader", "vlm_reader"},
		{"shuffled-frames-reader", "vlm_reader"}, {"contiguous-tenth-reader", "vlm_reader"}, {"full-video-reader", "vlm_reader"},
		{"eight-chunk-reader", "vlm_reader"},
	}
	if len(skipped) != len(want) {
		t.Fatalf("skipped %q, want %d lines", skipped, len(want))
	}
	for i, w := range want {
		if !strings.Contains(skipped[i], w.attacker+" skipped") || !strings.Contains(skipped[i], "no "+w.role+" role") {
			t.Errorf("skipped line %q, want one for %s naming the %s role", skipped[i], w.attacker, w.role)
		}
	}
	for _, a := range attack.Attackers(cfg) {
		if attack.FrameNeeds(a) == 0 {
			t.Errorf("%s declares no frame needs", a.Name())
		}
	}
}

// TestVLMReadersWithoutAnImageTowerNameIt checks that a models directory
// with vlm_reader but no image_text skips the VLM readers naming image_text,
// the role whose absence keeps the feature stage from running, not the
// vlm_reader it has.
func TestVLMReadersWithoutAnImageTowerNameIt(t *testing.T) {
	t.Parallel()
	cfg := videoConfig(0)
	cfg.Roles = []string{attack.RoleVLMReader}
	for _, a := range attack.Attackers(cfg) {
		if strings.HasSuffix(a.Name(), "-reader") && attack.FrameNeeds(a) != 0 {
			t.Errorf("%s runs without the image_text role", a.Name())
		}
	}
	n := 0
	for _, line := range attack.Skipped(cfg) {
		for _, name := range []string{"centre-frame-reader", "shuffled-frames-reader", "contiguous-tenth-reader", "full-video-reader", "eight-chunk-reader"} {
			if strings.Contains(line, name+" skipped") {
				n++
				if !strings.Contains(line, "no image_text role") {
					t.Errorf("skipped line %q, want it to name the image_text role", line)
				}
			}
		}
	}
	if n != 5 {
		t.Errorf("%d VLM readers reported skipped, want 5: %q", n, attack.Skipped(cfg))
	}
	// Every VLM reader served: their frames need no image tower, so they run.
	cfg.VLMOwnFrames = true
	ran := 0
	for _, a := range attack.Attackers(cfg) {
		if strings.HasSuffix(a.Name(), "-reader") && attack.FrameNeeds(a) != 0 {
			ran++
		}
	}
	if ran != 5 {
		t.Errorf("%d VLM readers run with VLMOwnFrames, want 5", ran)
	}
}
