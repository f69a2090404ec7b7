package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every subcommand's flags appear in "vidscreen help vidomni" and in its
// own --help page.
func TestVidomniHelpDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	_, page, _ := runCmd("help", "vidomni")
	for _, s := range vidomniSubcommands() {
		code, own, errOut := runCmd("vidomni", s.name, "--help")
		if code != 0 {
			t.Errorf("vidomni %s --help: exit %d, %s", s.name, code, errOut)
		}
		if !strings.Contains(page, "vidscreen vidomni "+s.name) {
			t.Errorf("vidscreen help vidomni does not show %s", s.name)
		}
		fs := flag.NewFlagSet(s.name, flag.ContinueOnError)
		s.flags(fs, &environment{})
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(page, "-"+f.Name) || !strings.Contains(own, "-"+f.Name) {
				t.Errorf("vidomni %s: flag -%s is not in the help", s.name, f.Name)
			}
			if f.Usage == "" {
				t.Errorf("vidomni %s: flag -%s has no usage text", s.name, f.Name)
			}
		})
	}
}

func TestVidomniScore(t *testing.T) {
	t.Parallel()
	td := filepath.Join("..", "..", "harness", "vidomni", "testdata")
	labels, verdicts := filepath.Join(td, "labels.jsonl"), filepath.Join(td, "verdicts.jsonl")
	out := t.TempDir()
	code, stdout, stderr := runCmd("vidomni", "score", "--labels", labels, "--verdicts", verdicts, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"A ", "44.4%", "replies that could not be parsed: 1", "sentences.parquet"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	got, err := os.ReadFile(filepath.Join(out, "scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(td, "scores.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("scores.json differs from harness/vidomni/testdata/scores.golden.json")
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"pair": "p1", "verifier": "A", "labels": [0, 1]}`+"\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"labels that do not match the caption", []string{"--labels", labels, "--verdicts", bad, "--out", out}, 2, "bad.jsonl:1: field labels"},
		{"a missing labels file", []string{"--labels", "nope.jsonl", "--verdicts", verdicts, "--out", out}, 2, "nope.jsonl"},
		{"no --out", []string{"--labels", labels, "--verdicts", verdicts}, 2, "required"},
		{"bad brackets", []string{"--labels", labels, "--verdicts", verdicts, "--out", out, "--brackets", "short"}, 2, "--brackets"},
		{"bad policy", []string{"--labels", labels, "--verdicts", verdicts, "--out", out, "--no-incorrect", "half"}, 2, "--no-incorrect"},
		{"an ensemble of an unknown verifier", []string{"--labels", labels, "--verdicts", verdicts, "--out", out, "--ensemble", "A+Z"}, 2, `verifier "Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"vidomni", "score"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.wantErr)
			}
		})
	}
}

// TestVidomniScoreMissingVerdicts: a verifier that skips a pair is
// refused, naming it and the pair; with --allow-missing the pair scores 0
// and the table counts it.
func TestVidomniScoreMissingVerdicts(t *testing.T) {
	t.Parallel()
	td := filepath.Join("..", "..", "harness", "vidomni", "testdata")
	labels := filepath.Join(td, "labels.jsonl")
	data, err := os.ReadFile(filepath.Join(td, "verdicts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(l, `"pair": "p2", "verifier": "A"`) {
			kept = append(kept, l)
		}
	}
	verdicts := filepath.Join(t.TempDir(), "gappy.jsonl")
	if err := os.WriteFile(verdicts, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := runCmd("vidomni", "score", "--labels", labels, "--verdicts", verdicts, "--out", out)
	if code != 2 || !strings.Contains(stderr, `verifier "A" gave no verdict on pair "p2"`) || !strings.Contains(stderr, "--allow-missing") {
		t.Fatalf("exit %d, stderr %q; want 2 naming verifier A and pair p2", code, stderr)
	}
	code, stdout, stderr := runCmd("vidomni", "score", "--labels", labels, "--verdicts", verdicts, "--out", out, "--allow-missing")
	if code != 0 {
		t.Fatalf("--allow-missing: exit %d: %s", code, stderr)
	}
	// A: p1 F1 2/3, p2 missing 0, p3 0: F1 22.2%, one pair missing.
	if !strings.Contains(stdout, "22.2%") || !strings.Contains(stdout, "pairs without a verdict: 1") {
		t.Errorf("stdout:\n%s", stdout)
	}
	js, err := os.ReadFile(filepath.Join(out, "scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Verifiers map[string]struct{ Missing int } `json:"verifiers"`
	}
	if err := json.Unmarshal(js, &s); err != nil || s.Verifiers["A"].Missing != 1 || s.Verifiers["B"].Missing != 0 {
		t.Errorf("scores.json verifiers %+v (%v), want A missing 1", s.Verifiers, err)
	}
}

func TestVidomniSplit(t *testing.T) {
	t.Parallel()
	var o strings.Builder
	env := &environment{stdin: strings.NewReader("Mr. Lee walks 3.5 m. He stops... then waits. \"Done.\" The end."), stdout: &o, stderr: &o, getenv: func(string) string { return "" }}
	if code := run(t.Context(), []string{"vidomni", "split", "--format", "json"}, env); code != 0 {
		t.Fatalf("exit %d: %s", code, o.String())
	}
	var got []string
	if err := json.Unmarshal([]byte(o.String()), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"Mr. Lee walks 3.5 m.", "He stops... then waits.", `"Done."`, "The end."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	o.Reset()
	env.stdin = strings.NewReader("A cat sits. It purrs.")
	if code := run(t.Context(), []string{"vidomni", "split", "--format", "numbered"}, env); code != 0 || o.String() != "sentence_1: A cat sits.\nsentence_2: It purrs.\n" {
		t.Fatalf("numbered: exit %d, %q", code, o.String())
	}
	if code, _, _ := runCmd("vidomni", "split", "--format", "xml"); code != 2 {
		t.Errorf("--format xml: exit %d, want 2", code)
	}
	if code, _, _ := runCmd("vidomni", "frobnicate"); code != 2 {
		t.Errorf("unknown subcommand: exit %d, want 2", code)
	}
}
