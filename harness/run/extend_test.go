package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
)

// splitBenchmarks writes the first n real items of each embedded benchmark
// into two files: the first two benchmarks (by name) and the other two. It
// returns the files and the number of items in the second that the audit
// keeps (bare yes/no items, all of VideoHallucer's, are set aside).
func splitBenchmarks(t *testing.T, n int) (first, second string, secondItems int) {
	t.Helper()
	b, err := demo.Head(n)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	parse := func(line string) (benchmark string, yesNo bool) {
		var x struct {
			Benchmark string
			Options   []string
		}
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			t.Fatal(err)
		}
		return x.Benchmark, harness.IsYesNo(x.Options)
	}
	bench := func(line string) string { b, _ := parse(line); return b }
	var names []string
	for _, l := range lines {
		if b := bench(l); !slices.Contains(names, b) {
			names = append(names, b)
		}
	}
	slices.Sort(names)
	if len(names) != 4 {
		t.Fatalf("%d benchmarks in the embedded default, want 4", len(names))
	}
	var x, y strings.Builder
	for _, l := range lines {
		l = strings.TrimRight(l, "\n") + "\n"
		if slices.Index(names, bench(l)) < 2 {
			x.WriteString(l)
		} else {
			y.WriteString(l)
			if _, yn := parse(l); !yn {
				secondItems++
			}
		}
	}
	dir := t.TempDir()
	first, second = filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
	os.WriteFile(first, []byte(x.String()), 0o644)
	os.WriteFile(second, []byte(y.String()), 0o644)
	return first, second, secondItems
}

func TestExtendingARunComputesOnlyTheNewWork(t *testing.T) {
	t.Parallel()
	first, second, nSecond := splitBenchmarks(t, 50)
	all := []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool}
	dir := t.TempDir()
	var freshCalls, calls atomic.Int64
	lex := textembed.NewLexical(0)
	fresh := mustAudit(t, Options{Items: []string{first, second}, Out: filepath.Join(dir, "fresh"), Levels: all, Seed: 5, Workers: 2,
		Embedder: countingEmbedder{lex, &freshCalls}})

	out := filepath.Join(dir, "extended")
	mustAudit(t, Options{Items: []string{first}, Out: out, Levels: all[:2], Seed: 5, Workers: 1, Embedder: countingEmbedder{lex, &calls}})
	before, err := os.ReadFile(filepath.Join(out, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	// A new benchmark file and a new level (five more attackers).
	res := mustAudit(t, Options{Items: []string{first, second}, Out: out, Levels: all, Seed: 5, Workers: 2, Embedder: countingEmbedder{lex, &calls}})

	sameOutputs(t, filepath.Join(dir, "fresh"), out)
	if !res.Extended || !res.Resumed || fresh.Extended {
		t.Errorf("extended %v resumed %v (fresh run extended %v)", res.Extended, res.Resumed, fresh.Extended)
	}
	// Only the new benchmark's texts were embedded: its item texts and
	// its questions.
	if got := calls.Load(); got != int64(2*nSecond) {
		t.Errorf("the extension embedded %d texts, want %d (the new benchmarks' texts and questions only)", got, 2*nSecond)
	}
	if freshCalls.Load() != int64(2*res.Items) {
		t.Errorf("the fresh run embedded %d texts, want %d", freshCalls.Load(), 2*res.Items)
	}
	// The old attackers answered the new benchmarks' items only; the new
	// ones every item.
	for _, at := range res.Attackers {
		want := res.Items * at.Variants
		if at.Level != harness.LevelPool {
			want = nSecond * at.Variants
		}
		if at.Variants == 0 || at.Items != want {
			t.Errorf("attacker %s (%s) answered %d items over %d variants, want %d", at.Name, at.Level, at.Items, at.Variants, want)
		}
	}
	// Nothing stored was rewritten.
	after, err := os.ReadFile(filepath.Join(out, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) || len(after) == len(before) {
		t.Errorf("records.log: %d bytes before, %d after; want the old records kept as they were and new ones appended", len(before), len(after))
	}
	// Run again: everything is stored.
	again := mustAudit(t, Options{Items: []string{first, second}, Out: out, Levels: all, Seed: 5, Workers: 2, Embedder: countingEmbedder{lex, &calls}})
	if again.Extended || again.UnitsStored != again.Units {
		t.Errorf("a second run of the extended configuration: extended %v, %d of %d units stored", again.Extended, again.UnitsStored, again.Units)
	}
	sameOutputs(t, filepath.Join(dir, "fresh"), out)
}

func TestExtendingRefusesWhatChangesStoredWork(t *testing.T) {
	t.Parallel()
	first, second, _ := splitBenchmarks(t, 20)
	// An item of a benchmark the run already audited, in a new file.
	b, _ := os.ReadFile(first)
	var it map[string]any
	json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &it)
	it["id"] = "added-later"
	line, _ := json.Marshal(it)
	more := filepath.Join(t.TempDir(), "more.jsonl")
	os.WriteFile(more, append(line, '\n'), 0o644)

	levels := []harness.Level{harness.LevelOption, harness.LevelText}
	out := filepath.Join(t.TempDir(), "run")
	mustAudit(t, Options{Items: []string{first}, Out: out, Levels: levels, Seed: 5})
	tests := []struct {
		name  string
		opt   Options
		field string
	}{
		{"an item added to an audited benchmark", Options{Items: []string{first, more}, Levels: levels, Seed: 5}, "benchmark_items." + it["benchmark"].(string)},
		{"another seed", Options{Items: []string{first, second}, Levels: levels, Seed: 6}, "seed"},
		{"a level left out", Options{Items: []string{first, second}, Levels: levels[:1], Seed: 5}, "attack.levels"},
		{"fewer item files", Options{Items: []string{second}, Levels: levels, Seed: 5}, "items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Out = out
			_, err := Audit(context.Background(), tt.opt)
			var cm *rundir.ConfigMismatchError
			if !errors.As(err, &cm) || !slices.Contains(cm.Fields, tt.field) {
				t.Errorf("error %v; want a configuration mismatch naming %s", err, tt.field)
			}
		})
	}
}

func TestExtendsConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		have, want string
		ok         bool
	}{
		{"the same", `{"seed": 1, "items": [{"sha256": "a"}]}`, `{"seed": 1, "items": [{"sha256": "a"}]}`, true},
		{"a file more", `{"items": [{"sha256": "a"}]}`, `{"items": [{"sha256": "b"}, {"sha256": "a"}]}`, true},
		{"a file replaced", `{"items": [{"sha256": "a"}]}`, `{"items": [{"sha256": "b"}]}`, false},
		{"a level more", `{"attack": {"levels": ["option"], "k": 8}}`, `{"attack": {"levels": ["option", "pool"], "k": 8}}`, true},
		{"an attacker parameter changed", `{"attack": {"levels": ["option"], "k": 8}}`, `{"attack": {"levels": ["option"], "k": 9}}`, false},
		{"a reader added", `{"seed": 1}`, `{"seed": 1, "lm_reader": "r"}`, true},
		{"a reader changed", `{"lm_reader": "r"}`, `{"lm_reader": "s"}`, false},
		{"a reference added", `{"reference": null}`, `{"reference": {"sha256": "r"}}`, true},
		{"a limit added", `{"seed": 1}`, `{"seed": 1, "limit": 5}`, false},
		{"a benchmark added", `{"benchmark_items": {"A": "1"}}`, `{"benchmark_items": {"A": "1", "B": "2"}}`, true},
		{"a benchmark changed", `{"benchmark_items": {"A": "1"}}`, `{"benchmark_items": {"A": "3", "B": "2"}}`, false},
		{"an attacker added", `{"attacker_versions": {"copy": "1"}}`, `{"attacker_versions": {"copy": "1", "knn-vote": "1"}}`, true},
		{"an attacker's version changed", `{"attacker_versions": {"copy": "1"}}`, `{"attacker_versions": {"copy": "2"}}`, false},
		{"a run from before attacker versions resumed", `{"seed": 1}`, `{"seed": 1, "attacker_versions": {"copy": "1"}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok, blocking := extendsConfig([]byte(tt.have), []byte(tt.want)); ok != tt.ok {
				t.Errorf("extends = %v (blocking %v), want %v", ok, blocking, tt.ok)
			}
		})
	}
}
