package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// stageLine is a progress log line (--log-format json) of a stage.
type stageLine struct {
	Msg   string  `json:"msg"`
	Stage string  `json:"stage"`
	Done  int64   `json:"done"`
	Total any     `json:"total"`
	Unit  string  `json:"unit"`
	Rate  float64 `json:"rate"`
}

// stageEnds reads the "stage done" lines of a JSON progress log, by stage.
func stageEnds(t *testing.T, log string) map[string]stageLine {
	t.Helper()
	out := map[string]stageLine{}
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var s stageLine
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("a progress line that is not JSON: %q", l)
		}
		if s.Msg == "stage done" {
			out[s.Stage] = s
		}
	}
	return out
}

// TestShardsAskTheReadersAndMergeAsksNothing: at the option, text and pool
// levels with an lm_reader (and the cross-pool variants), the shards of a 1-, 2- and 3-way split
// together ask the reader exactly the prompts the unsharded audit asks
// (each item's, on every order and option permutation, once), the merge
// asks none, and its outputs are the unsharded audit's, byte for byte.
// Each reader stage has its meter: the shards' readers and permutation
// orders count prompts, the unsharded audit's permutation audit answers,
// and the cards meter counts cards.
func TestShardsAskTheReadersAndMergeAsksNothing(t *testing.T) {
	t.Parallel()
	items := realItems(t, 40)
	tmp := t.TempDir()
	var asked atomic.Int64
	base := Options{Items: []string{items}, Seed: 2, Workers: 2, Reader: countingReader{&asked}, ReaderName: "counting", CrossPool: true,
		Levels: []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool}}
	withLog := func(opt Options) (Options, *bytes.Buffer) {
		var buf bytes.Buffer
		rep, err := progress.ForWriter(&buf, "json", false)
		if err != nil {
			t.Fatal(err)
		}
		opt.Progress = rep
		return opt, &buf
	}
	whole := base
	whole.Out = filepath.Join(tmp, "whole")
	whole, log := withLog(whole)
	res := mustAudit(t, whole)
	whole.Progress.Close()
	all := asked.Load()
	if all == 0 {
		t.Fatal("the unsharded audit asked the reader nothing")
	}
	ends := stageEnds(t, log.String())
	// Two readers list the options (options-only, blind), on 9 orders.
	if p := ends["permutations"]; p.Unit != "answers" || p.Done != int64(2*9*res.Items) || fmt.Sprint(p.Total) != fmt.Sprint(p.Done) {
		t.Errorf("the permutation audit's meter ended at %+v, want %d answers of %d", p, 2*9*res.Items, 2*9*res.Items)
	}
	if c := ends["cards"]; c.Unit != "cards" || c.Done != int64(len(res.Cards)) {
		t.Errorf("the cards meter ended at %+v, want %d cards", c, len(res.Cards))
	}
	for _, n := range []int{1, 2, 3} {
		asked.Store(0)
		var shards []string
		for i := range n {
			opt := base
			opt.Out = filepath.Join(tmp, fmt.Sprintf("shard-%d-of-%d", i, n))
			opt.Shard = &Shard{i, n}
			opt, log := withLog(opt)
			before := asked.Load()
			sres := mustAudit(t, opt)
			opt.Progress.Close()
			shards = append(shards, opt.Out)
			ends := stageEnds(t, log.String())
			r, p := ends["readers"], ends["permutations"]
			if sres.Shard.Items > 0 && (r.Unit != "prompts" || r.Done == 0 || p.Unit != "prompts" || p.Done != int64(2*9*sres.Shard.Items)) {
				t.Errorf("shard %d/%d of %d items: readers meter %+v, permutations meter %+v", i, n, sres.Shard.Items, r, p)
			}
			if got := asked.Load() - before; got != r.Done+p.Done {
				t.Errorf("shard %d/%d asked %d prompts, its meters counted %d", i, n, got, r.Done+p.Done)
			}
		}
		if got := asked.Load(); got != all {
			t.Errorf("%d shards asked %d prompts together, the unsharded audit %d", n, got, all)
		}
		asked.Store(0)
		opt := base
		opt.Out = filepath.Join(tmp, fmt.Sprintf("merged-%d", n))
		opt.Merge = shards
		mustAudit(t, opt)
		if got := asked.Load(); got != 0 {
			t.Errorf("the merge of %d shards asked the reader %d prompts, want none", n, got)
		}
		sameOutputs(t, whole.Out, opt.Out)
		if n == 2 {
			// A shard run again and a merge run again ask nothing and
			// change nothing.
			again := base
			again.Out, again.Shard = shards[1], &Shard{1, 2}
			mustAudit(t, again)
			mustAudit(t, opt)
			if got := asked.Load(); got != 0 {
				t.Errorf("a shard and a merge run again asked the reader %d prompts, want none", got)
			}
			sameOutputs(t, whole.Out, opt.Out)
		}
	}
}

// TestMergeServedModes: the merge takes, per role and model, the first
// shard's mode by shard index, whatever order the shards are given in; a
// shard that recorded none for a role leaves the others' standing; with no
// mode anywhere it takes none. Each shard's modes are read from its
// config.json (served_modes) or, for a shard made before they were kept
// there, from its cache's served-modes.json; config.json wins where both
// are.
func TestMergeServedModes(t *testing.T) {
	t.Parallel()
	lm := func(mode string, prefill bool) metrics.ServedReader {
		return metrics.ServedReader{Role: "lm_reader", Model: "m", Mode: mode, Prefill: prefill}
	}
	vl := func(mode string, prefill bool) metrics.ServedReader {
		return metrics.ServedReader{Role: "vlm_reader", Model: "v", Mode: mode, Prefill: prefill}
	}
	for _, tc := range []struct {
		name   string
		shards [][]metrics.ServedReader // by shard index; nil: none recorded
		old    [][]metrics.ServedReader // in the cache's served-modes.json, by shard index
		want   []metrics.ServedReader   // nil: none
	}{
		{"one shard asked each role", [][]metrics.ServedReader{{lm("", false), vl("logprobs", true)}, {lm("logprobs", true), vl("", false)}}, nil,
			[]metrics.ServedReader{lm("logprobs", true), vl("logprobs", true)}},
		{"the first shard's mode stands", [][]metrics.ServedReader{{lm("generate", false)}, {lm("logprobs", true)}}, nil,
			[]metrics.ServedReader{lm("generate", false)}},
		{"a shard without modes", [][]metrics.ServedReader{nil, {vl("logprobs", true)}}, nil,
			[]metrics.ServedReader{vl("logprobs", true)}},
		{"no mode anywhere", [][]metrics.ServedReader{{lm("", false)}, nil}, nil, nil},
		{"older shards", nil, [][]metrics.ServedReader{{lm("", false), vl("logprobs", true)}, {lm("generate", false), vl("", false)}},
			[]metrics.ServedReader{lm("generate", false), vl("logprobs", true)}},
		{"config.json wins", [][]metrics.ServedReader{{lm("logprobs", true)}, nil}, [][]metrics.ServedReader{{lm("generate", false)}, nil},
			[]metrics.ServedReader{lm("logprobs", true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			var dirs []string
			for i := range max(len(tc.shards), len(tc.old)) {
				dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", i))
				if err := os.MkdirAll(filepath.Join(dir, rundir.CacheDir), 0o755); err != nil {
					t.Fatal(err)
				}
				n := max(len(tc.shards), len(tc.old))
				b, _ := json.Marshal(ShardSummary{Shard: i, Shards: n})
				os.WriteFile(filepath.Join(dir, rundir.ShardFile), b, 0o644)
				if i < len(tc.shards) && tc.shards[i] != nil {
					cfg := rundir.Config{Format: rundir.FormatVersion, Shard: fmt.Sprintf("%d/%d", i, n), ServedModes: toConfigModes(tc.shards[i])}
					if err := rundir.WriteConfig(dir, &cfg); err != nil {
						t.Fatal(err)
					}
				}
				if i < len(tc.old) && tc.old[i] != nil {
					b, _ := json.Marshal(tc.old[i])
					os.WriteFile(filepath.Join(dir, rundir.CacheDir, rundir.ServedModesFile), b, 0o644)
				}
				dirs = append([]string{dir}, dirs...) // given last shard first
			}
			got, err := mergeServedModes(dirs, (*progress.Reporter)(nil))
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("merged modes %+v (%v), want %+v", got, err, tc.want)
			}
		})
	}
}
