package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TestWorldAudioTestCatchesTheAudioFamilyOnly renders a small world and
// audits it at the frame level with the world's own models: the asr role
// (onnxbuild.ToneASR) transcribes the audio family's soundtracks, and
// transcript-match, a Video-Oasis diagnostic, answers every audio item from
// the transcript, flagged on world-audio's card in its own row and in no
// level's eps there; on every other family's card it abstained on every
// item (no audio stream), flagging nothing. transcript-reader is skipped,
// naming lm_reader, which the world has not. Screening's consensus counts
// the audio test's shortcuts: the audio family's items, no other.
func TestWorldAudioTestCatchesTheAudioFamilyOnly(t *testing.T) {
	t.Parallel()
	dir := audioWorld.path(t)
	out := filepath.Join(t.TempDir(), "audit")
	// --keep-yesno: the world's copy and siblings families are bare yes/no items, which every card here must still hold.
	code, _, errOut := runCmd("audit", "--items", filepath.Join(dir, "items.jsonl"), "--videos", dir,
		"--models", filepath.Join(dir, "models"), "--keep-yesno", "--levels", "frame", "--out", out, "--seed", "1", "--log-format", "json", "--workers", "4")
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errOut)
	}
	// One worker decodes and transcribes the videos one at a time: the
	// same cards, byte for byte.
	one := filepath.Join(t.TempDir(), "audit1")
	if code, _, errOut := runCmd("audit", "--items", filepath.Join(dir, "items.jsonl"), "--videos", dir,
		"--models", filepath.Join(dir, "models"), "--keep-yesno", "--levels", "frame", "--out", one, "--seed", "1", "--quiet", "--workers", "1"); code != 0 {
		t.Fatalf("audit --workers 1: exit %d: %s", code, errOut)
	}
	a, _ := os.ReadFile(filepath.Join(out, "cards.json"))
	b, _ := os.ReadFile(filepath.Join(one, "cards.json"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("cards.json differs between 4 workers and 1")
	}
	if !strings.Contains(errOut, "transcript-reader skipped: the models directory has no lm_reader role") {
		t.Errorf("stderr lacks the skipped transcript-reader:\n%s", errOut)
	}
	cards, _ := readCards(t, out)
	audioItems := 0
	for _, c := range cards {
		var row *metrics.AttackerResult
		for k := range c.Attackers {
			if c.Attackers[k].Name == "transcript-match" {
				row = &c.Attackers[k]
			}
		}
		if row == nil {
			t.Errorf("%s: no transcript-match row", c.Benchmark)
			continue
		}
		if !row.DiagnosticOnly {
			t.Errorf("%s: transcript-match is not diagnostic only", c.Benchmark)
		}
		lb, _ := json.Marshal(c.Levels)
		if strings.Contains(string(lb), "transcript-") {
			t.Errorf("%s: a transcript attacker sets a level: %s", c.Benchmark, lb)
		}
		if c.Benchmark == "world-audio" {
			audioItems = c.N
			if !row.SignificantUncorrected || row.Accuracy != 1 || row.Answered != c.N {
				t.Errorf("world-audio: transcript-match flagged %v, accuracy %v, answered %d of %d; want flagged, every item right", row.SignificantUncorrected, row.Accuracy, row.Answered, c.N)
			}
			continue
		}
		if row.SignificantUncorrected || row.Answered != 0 {
			t.Errorf("%s: transcript-match flagged %v, answered %d; want every item abstained (no audio stream)", c.Benchmark, row.SignificantUncorrected, row.Answered)
		}
	}
	if audioItems == 0 {
		t.Fatal("no world-audio card")
	}
	if code, _, errOut := runCmd("screen", out, "--attackers", "transcript-match,centre-frame"); code != 0 {
		t.Fatalf("screen: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "screen", "screen.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Consensus struct {
			Counts []struct {
				Test  string `json:"test"`
				Total []int  `json:"total"`
			} `json:"counts"`
		} `json:"consensus"`
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tc := range sc.Consensus.Counts {
		if tc.Test == "audio transcript" {
			found = true
			if len(tc.Total) == 0 || tc.Total[0] != audioItems {
				t.Errorf("consensus: audio transcript shortcuts %v at c=1, want the %d audio items", tc.Total, audioItems)
			}
		}
	}
	if !found {
		t.Errorf("consensus has no audio transcript count: %s", b)
	}
}
