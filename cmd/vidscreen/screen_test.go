package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/screen"
)

func TestScreenCommand(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 30)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if code, _, stderr := runAudit("--items", items, "--out", run, "--levels", "option,text"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCmd("screen", run, "--drop-quality", "repeated_option")
	if code != 0 {
		t.Fatalf("screen: exit %d: %s", code, stderr)
	}
	// A text-level audit has no model reader: the terminal says the default
	// screeners were absent and what to add, in one line.
	for _, want := range []string{"the default screeners options-reader, blind-reader, centre-frame-reader, full-video-reader, shuffled-frames-reader are absent", "--models DIR", "--attackers "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if n := strings.Count(stderr, "default screeners"); n != 1 {
		t.Errorf("stderr says the absent screeners %d times, want once: %q", n, stderr)
	}
	var sum screenSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	// VideoHallucer's 30 items are bare yes/no pairs: the audit set them
	// aside, so 90 items of 3 benchmarks are screened.
	if sum.Out != filepath.Join(run, "screen") || sum.Items != 90 || len(sum.Benchmarks) != 3 || sum.Kept > sum.Items {
		t.Errorf("summary %+v", sum)
	}
	s, err := screen.Read(sum.Out)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, r := range s.Rows {
		if r.Kept {
			kept++
		}
	}
	if len(s.Rows) != 90 || kept != sum.Kept || strings.Join(s.Options.DropQuality, ",") != "repeated_option" {
		t.Errorf("read back %d rows, %d kept (summary %d), options %+v", len(s.Rows), kept, sum.Kept, s.Options)
	}
	for _, name := range []string{screen.ScreenParquet, screen.AmbiguityParquet, screen.ScreenJSON, screen.ScreenMarkdown, screen.ScreenHTML, screen.QuestionNPY} {
		if _, err := os.Stat(filepath.Join(sum.Out, name)); err != nil {
			t.Error(err)
		}
	}

	// The same run with its completion record gone, as an audit killed in
	// its write stage leaves it.
	unfinished := filepath.Join(dir, "unfinished")
	if err := os.CopyFS(unfinished, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(unfinished, completion.File))
	// A truncated question.npy, whether or not the completion record
	// notices: bad input (exit 2) naming the file, as a missing one is.
	truncated := filepath.Join(dir, "truncated")
	if err := os.CopyFS(truncated, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	qpath := filepath.Join(truncated, screen.QuestionNPY)
	st, err := os.Stat(qpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(qpath, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	rec, err := completion.Check(run)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range rec.Outputs {
		names = append(names, o.Name)
	}
	// Recorded again, so that the reader, not the record, meets the damage.
	if err := completion.Write(truncated, rec.Vidscreen, names); err != nil {
		t.Fatal(err)
	}
	// The sensitivity review read back: a decision naming an item of the
	// run is taken, a bad line or an item of another run is bad input.
	first := s.Rows[0]
	review := func(name, line string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := review("good.jsonl", `{"benchmark":"`+first.Benchmark+`","id":"`+first.ID+`","decision":"restore"}`)
	restored := filepath.Join(dir, "restored")
	if code, _, stderr := runCmd("screen", run, "--out", restored, "--restore", good, "--consensus-rule", "solve"); code != 0 {
		t.Fatalf("screen --restore: exit %d: %s", code, stderr)
	}
	rs, err := screen.Read(restored)
	if err != nil {
		t.Fatal(err)
	}
	if !rs.Rows[0].Restored || rs.Options.ConsensusRule != screen.RuleSolve || len(rs.Options.Restored) != 1 {
		t.Errorf("restored screen: row 0 restored %v, options %+v", rs.Rows[0].Restored, rs.Options)
	}
	if _, err := os.Stat(filepath.Join(restored, screen.SensitivityJSONL)); err != nil {
		t.Error(err)
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"a review with a bad decision", []string{run, "--restore", review("bad.jsonl", `{"benchmark":"A","id":"1","decision":"maybe"}`)}, "bad.jsonl:1: field decision"},
		{"a review of another run", []string{run, "--restore", review("other.jsonl", `{"benchmark":"nowhere","id":"1","decision":"restore"}`)}, "item nowhere/1 is not an item of the run"},
		{"an unknown consensus rule", []string{run, "--consensus-rule", "margin"}, `consensus-rule: "margin" is not a rule`},
		{"no run", nil, "name one run directory"},
		{"a directory that is no run", []string{dir}, "not a run directory"},
		{"a run whose audit did not finish", []string{unfinished}, "the audit did not finish (no complete.json"},
		{"a truncated question.npy", []string{truncated}, "question.npy"},
		{"an attacker the run does not have", []string{run, "--attackers", "copy"}, `"copy" is not an attacker of the run`},
		{"an unknown quality flag", []string{run, "--drop-quality", "blurry"}, `"blurry" is not a data-quality flag`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"screen"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.stderr)
			}
		})
	}
}
