package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/models"
)

// twoVLMEntries copies the models folder dir with its vlm_reader listed
// twice (the same built model), as models.json's list syntax allows.
func twoVLMEntries(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, models.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	vlm := man["roles"]["vlm_reader"]
	man["roles"]["vlm_reader"] = json.RawMessage("[" + string(vlm) + "," + string(vlm) + "]")
	b, _ = json.Marshal(man)
	two := filepath.Join(t.TempDir(), "two")
	if err := os.CopyFS(two, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(two, models.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return two
}

// TestAuditExtraVLMReaders: a models.json whose vlm_reader lists two
// entries runs the centre-frame and frame-shuffling tests a second time as
// centre-frame-reader#2 and shuffled-frames-reader#2. The cards report them
// as diagnostic only, and every level's eps is the one-entry run's;
// screening's consensus counts each as its test's further model, so the
// shuffling test, whose only model was vlm_reader, reaches c = 2 on every
// item it makes a shortcut at c = 1.
func TestAuditExtraVLMReaders(t *testing.T) {
	t.Parallel()
	items, root, _ := worldFixture(t)
	one := initModelsDir(t)
	two := twoVLMEntries(t, one)
	type card struct {
		Benchmark string                     `json:"benchmark"`
		Levels    map[string]json.RawMessage `json:"levels"`
		Attackers []struct {
			Name           string  `json:"name"`
			Accuracy       float64 `json:"accuracy"`
			Significant    bool    `json:"significant"`
			DiagnosticOnly bool    `json:"diagnostic_only"`
		} `json:"attackers"`
	}
	var cards [2][]card
	var scr [2]*screen.Screen
	tmp := t.TempDir()
	for k, dir := range []string{one, two} {
		out := filepath.Join(tmp, "run-"+filepath.Base(dir))
		// --keep-yesno: the world's copy and siblings families are bare yes/no items, which every card here must still hold.
		code, _, stderr := runAudit("--items", items, "--videos", root, "--out", out, "--models", dir, "--keep-yesno", "--levels", "frame,order", "--workers", "1", "--quiet")
		if code != 0 {
			t.Fatalf("audit with %s: exit %d\n%s", dir, code, stderr)
		}
		if strings.Contains(stderr, "vlm_reader lists") {
			t.Errorf("%s: the audit says the later vlm_reader entry is not run: %s", dir, stderr)
		}
		var doc struct {
			Cards []card `json:"cards"`
		}
		b, err := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
		if err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Cards) == 0 {
			t.Fatalf("cards.json: %v", err)
		}
		cards[k] = doc.Cards
		var cfg rundir.Config
		b, _ = os.ReadFile(filepath.Join(out, rundir.ConfigFile))
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		if n := len(cfg.Videos.VLMExtra); n != k || k == 1 && !strings.HasPrefix(cfg.Videos.VLMExtra[0], cfg.Videos.VLMReader+" ") {
			t.Errorf("%s: config.json vlm_reader_extra %q (vlm_reader %q)", dir, cfg.Videos.VLMExtra, cfg.Videos.VLMReader)
		}
		if code, _, stderr := runCmd("screen", out); code != 0 {
			t.Fatalf("screen %s: exit %d: %s", out, code, stderr)
		}
		if scr[k], err = screen.Read(filepath.Join(out, "screen")); err != nil {
			t.Fatal(err)
		}
	}
	for b := range cards[0] {
		c1, c2 := cards[0][b], cards[1][b]
		if string(mustJSON(t, c1.Levels)) != string(mustJSON(t, c2.Levels)) {
			t.Errorf("%s: levels %s with one vlm_reader entry, %s with two", c1.Benchmark, mustJSON(t, c1.Levels), mustJSON(t, c2.Levels))
		}
		acc := map[string]float64{}
		for _, a := range c2.Attackers {
			acc[a.Name] = a.Accuracy
			extra := strings.HasSuffix(a.Name, "#2")
			if extra && (!a.DiagnosticOnly || a.Significant) {
				t.Errorf("%s: %s diagnostic_only %v, significant %v", c2.Benchmark, a.Name, a.DiagnosticOnly, a.Significant)
			}
		}
		for _, base := range []string{"centre-frame-reader", "shuffled-frames-reader"} {
			a, ok1 := acc[base]
			x, ok2 := acc[base+"#2"]
			if !ok1 || !ok2 || a != x {
				t.Errorf("%s: %s %v (%v), %s#2 %v (%v): the same model must answer alike", c2.Benchmark, base, a, ok1, base, x, ok2)
			}
		}
		for _, a := range c1.Attackers {
			if strings.HasSuffix(a.Name, "#2") {
				t.Errorf("%s: the one-entry run has %s", c1.Benchmark, a.Name)
			}
		}
	}
	models := func(s *screen.Screen, test string) []string {
		for _, ti := range s.Consensus.Tests {
			if ti.Test == test {
				var out []string
				for _, m := range ti.Models {
					out = append(out, m.Model+"="+m.Attackers[0])
				}
				return out
			}
		}
		return nil
	}
	if got := models(scr[1], screen.TestFrameShuffling); !slices.Equal(got, []string{"vlm_reader=shuffled-frames-reader", "vlm_reader#2=shuffled-frames-reader#2"}) {
		t.Errorf("two entries: the shuffling test's models %v", got)
	}
	if got := models(scr[1], screen.TestCentreFrame); !slices.Contains(got, "vlm_reader#2=centre-frame-reader#2") {
		t.Errorf("two entries: the centre-frame test's models %v", got)
	}
	counts := func(s *screen.Screen, test string) []int {
		for _, c := range s.Consensus.Counts {
			if c.Test == test {
				return c.Total
			}
		}
		return nil
	}
	c1, c2 := counts(scr[0], screen.TestFrameShuffling), counts(scr[1], screen.TestFrameShuffling)
	t.Logf("shuffling test shortcuts at c = 1, 2, 3: %v with one vlm_reader entry, %v with two", c1, c2)
	if len(c1) < 3 || len(c2) < 3 || c1[1] != 0 || c2[0] != c1[0] || c2[1] != c2[0] || c2[2] != 0 {
		t.Errorf("shuffling test shortcuts at c = 1, 2, 3: %v with one entry, %v with two", c1, c2)
	}
	if len(c2) > 1 && c2[1] == 0 {
		t.Errorf("no item solved by the shuffled-frames readers: the test shows nothing at c = 2")
	}
	// The consistency check compares the full-video readers of the two
	// entries (the authors compare five); one model does not run it. The
	// same model twice never disagrees.
	for k, want := range []string{"full-video-reader", "full-video-reader,full-video-reader#2"} {
		ck := scr[k].Consensus.Checks[0]
		if ck.Check != "consistency" || strings.Join(ck.Attackers, ",") != want || scr[k].Consensus.Ambiguity.Consistency != 0 {
			t.Errorf("%d entries: consistency check %+v, %d flagged; want %s and none", k+1, ck, scr[k].Consensus.Ambiguity.Consistency, want)
		}
	}
	if n := scr[1].Consensus.Checks[0].Note; !strings.Contains(n, "2 models where the paper compares five") {
		t.Errorf("two entries: consistency note %q", n)
	}
}

// TestAuditExtraVLMReadersResume kills an audit with two vlm_reader
// entries in its attack stage, resumes it, and checks that the outputs are
// byte-identical to an uninterrupted run's: the later entry's scores and
// answers are stored under its own keys and read back.
func TestAuditExtraVLMReadersResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary several times")
	}
	items, root, _ := worldFixture(t)
	one := initModelsDir(t)
	two := twoVLMEntries(t, one)
	tmp := t.TempDir()
	bin := binary(t)
	args := func(out string) []string {
		return []string{"audit", "--items", items, "--out", out, "--videos", root, "--models", two, "--keep-yesno", "--levels", "frame,order", "--workers", "2", "--quiet"}
	}
	whole := filepath.Join(tmp, "whole")
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	cut := filepath.Join(tmp, "cut")
	cmd := exec.Command(bin, args(cut)...)
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed := false
wait:
	for {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("run before the kill failed: %v\n%s", err, log.String())
			}
			break wait
		case <-time.After(time.Millisecond):
		}
		if st, err := os.Stat(filepath.Join(cut, rundir.RecordsFile)); err == nil && st.Size() > 0 {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = <-exited != nil
			break wait
		}
	}
	if !killed {
		t.Errorf("the run ended before the kill in the attack stage")
	}
	if out, err := exec.Command(bin, args(cut)...).CombinedOutput(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	sameOutputs(t, whole, cut, "after a kill in the attack stage, with two vlm_reader entries")
	b, _ := os.ReadFile(filepath.Join(cut, rundir.CardsMarkdown))
	if !strings.Contains(string(b), "shuffled-frames-reader#2") {
		t.Errorf("the resumed run's cards.md has no shuffled-frames-reader#2")
	}
}
