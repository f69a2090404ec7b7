package main

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"seed", "seed", 0},
		{"", "out", 3},
		{"sed", "seed", 1},        // insertion
		{"seeds", "seed", 1},      // deletion
		{"workrs", "workers", 1},  // insertion
		{"wokrers", "workers", 1}, // a swap of neighbours is one slip
		{"benchmark", "benchmarks", 1},
		{"kitten", "sitting", 3},
		{"tasks", "benchmarks", 7}, // a, k, s kept; t and s substituted; 5 inserted
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSuggestFlag(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	for _, n := range []string{"benchmarks", "items", "out", "workers", "seed", "video-root", "videos", "models"} {
		fs.String(n, "", "")
	}
	tests := []struct{ typed, want string }{
		{"tasks", "benchmarks"},     // lmms-eval's name, by the synonyms table
		{"--tasks", "benchmarks"},   // dashes are not part of the name
		{"output_path", "out"},      // lmms-eval's --output_path
		{"data", "benchmarks"},      // VLMEvalKit's --data
		{"benchmark", "benchmarks"}, // one letter short
		{"wokrers", "workers"},      // swapped letters
		{"sed", "seed"},             // one letter missing
		{"video-r", "video-root"},   // the only flag it begins
		{"model", "models"},         // synonym that fs defines
		{"frobnicate", ""},          // nothing close: no guess
		{"q", ""},                   // too short to guess from
	}
	for _, tt := range tests {
		if got := suggestFlag(fs, tt.typed); got != tt.want {
			t.Errorf("suggestFlag(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestFlagErrorText(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.String("benchmarks", "", "")
	fs.Int("seed", 0, "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--tasks", "a"}, "unknown flag --tasks; did you mean --benchmarks?"},
		{[]string{"-zzzzzz"}, "unknown flag --zzzzzz"},
		{[]string{"--seed", "x"}, `invalid value "x" for flag --seed: parse error`},
		{[]string{"--seed"}, "flag needs an argument: --seed"},
	}
	for _, tt := range tests {
		err := fs.Parse(tt.args)
		if err == nil || errors.Is(err, flag.ErrHelp) {
			t.Fatalf("Parse(%q) = %v, want an error", tt.args, err)
		}
		if got := flagErrorText(fs, err); got != tt.want {
			t.Errorf("Parse(%q): %q, want %q", tt.args, got, tt.want)
		}
	}
}

// An unknown flag is one line on stderr, naming the closest flag and the
// help page; nothing on stdout.
func TestUnknownFlagOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--tasks", "videomme"}, "vidscreen audit: unknown flag --tasks; did you mean --benchmarks? (usage: vidscreen audit --help)\n"},
		{[]string{"select", "--budjet", "10", "run"}, "vidscreen select: unknown flag --budjet; did you mean --budget? (usage: vidscreen select --help)\n"},
		{[]string{"screen", "run", "--every-attackers"}, "vidscreen screen: unknown flag --every-attackers; did you mean --every-attacker? (usage: vidscreen screen --help)\n"},
		{[]string{"models", "tokenize", "--tokeniser", "x"}, "vidscreen models: tokenize: unknown flag --tokeniser; did you mean --tokenizer? (usage: vidscreen models --help)\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(tt.args...)
		if code != 2 || out != "" || errOut != tt.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, \"\", %q", tt.args, code, out, errOut, tt.want)
		}
	}
}
