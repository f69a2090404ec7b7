package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/checksum"
)

// ProbeFile, in a shard's run directory, holds the 128-frame reference
// probe's scores of the shard's items of the benchmarks that could need it
// (probeCandidates), so that a merge of an audit with --reference-model
// decides the probe per benchmark from stored scores and asks no model.
const ProbeFile = "reference-probe.json"

// probeRecord is the content of ProbeFile. Scores are written as
// strconv's shortest form ('g', -1), which reads back to the same float64
// and, unlike a JSON number, holds -Inf (a letter a server gave no
// log-probability).
type probeRecord struct {
	Frames     int          `json:"frames"`
	Model      string       `json:"model"`
	Benchmarks []string     `json:"benchmarks"`
	Items      []probeEntry `json:"items"`
}

// A probeEntry is one item's probe: its scores (none where the prompt
// fitted no frame count or its video failed: the item is then unanswered),
// or Failed where a served reader's server failed it after its retries.
type probeEntry struct {
	Key    string   `json:"key"`
	Scores []string `json:"scores,omitempty"`
	Failed bool     `json:"failed,omitempty"`
}

// probeCandidates returns the benchmarks whose 128-frame probe a shard must
// score: those planReference could probe. Whether it does depends on the
// whole benchmark's 32-frame accuracy, which no shard knows; whether the
// benchmark is long-video (mean duration at least LongVideoSeconds) a shard
// knows only where every item gives its duration (harness.Item.Duration,
// which planReference takes before the decoded video's): a benchmark with
// an item of no duration is a candidate, since its mean needs the videos
// of every shard. Every shard thus scores the same benchmarks, a superset
// of those the merge probes, and the merge finds each probed item's
// scores in its shard's ProbeFile.
func probeCandidates(items []*harness.Item) map[string]bool {
	type tally struct {
		sec       float64
		n         int
		undecided bool
	}
	per := map[string]*tally{}
	for _, it := range items {
		t := per[it.Benchmark]
		if t == nil {
			t = &tally{}
			per[it.Benchmark] = t
		}
		if it.Duration == nil {
			t.undecided = true
			continue
		}
		t.sec += *it.Duration
		t.n++
	}
	out := map[string]bool{}
	for b, t := range per {
		if t.undecided || t.sec/float64(t.n) >= LongVideoSeconds {
			out[b] = true
		}
	}
	return out
}

// shardProbe is a shard's part of the reference stage (--reference-model):
// it scores its own items (mine) of the candidate benchmarks at
// ProbeFrames, as the unsharded audit's probe does (probeScores, through
// the shard's cache), and writes them to ProbeFile, where the merge reads
// them (mergedProbe). It scores more than an unsharded audit may (every
// candidate, whatever its 32-frame accuracy): the price of a merge that
// asks no model.
func (a *audit) shardProbe(ctx context.Context, mine []bool) error {
	if !a.opt.ReferenceModel || a.opt.Video == nil || a.opt.Video.VLM == nil {
		return nil
	}
	t0 := time.Now()
	cand := probeCandidates(a.items)
	var sub []*harness.Item
	for i, it := range a.items {
		if mine[i] && cand[it.Benchmark] {
			sub = append(sub, it)
		}
	}
	rec := probeRecord{Frames: ProbeFrames, Model: "vlm_reader:" + a.opt.Video.VLMName, Items: []probeEntry{}}
	for b := range cand {
		rec.Benchmarks = append(rec.Benchmarks, b)
	}
	slices.Sort(rec.Benchmarks)
	if len(sub) > 0 {
		scores, failed, err := a.probeScores(ctx, sub)
		if err != nil {
			return err
		}
		for k, it := range sub {
			e := probeEntry{Key: it.Key(), Failed: failed[k]}
			for _, x := range scores[k] {
				e.Scores = append(e.Scores, strconv.FormatFloat(x, 'g', -1, 64))
			}
			rec.Items = append(rec.Items, e)
		}
		a.opt.Progress.Note("shard reference probe done", "items", len(sub), "frames", ProbeFrames, "benchmarks", len(cand))
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	path := filepath.Join(a.opt.Out, ProbeFile)
	if err := checksum.Write(path, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return fmt.Errorf("reference probe: %w", err)
	}
	a.stage("reference", t0)
	return nil
}

// mergedProbe returns, in a merge, the 128-frame probe's scores of the
// items idx (ascending) and which of them their shard's server failed,
// read from the ProbeFile of each item's shard. An item its shard holds no
// entry for (a shard made by a vidscreen that did not probe in the
// shards) is scored here, with a warning: the merge then asks vlm_reader,
// and its stages.json counts the requests.
func (a *audit) mergedProbe(ctx context.Context, idx []int) ([][]float64, []bool, error) {
	of := a.shardOf()
	byShard := make([]map[string]probeEntry, len(a.opt.Merge))
	dirOf := make([]string, len(a.opt.Merge))
	index := map[string]int{}
	for _, dir := range a.opt.Merge {
		s, err := ReadShard(dir)
		if err != nil {
			return nil, nil, err
		}
		index[dir], dirOf[s.Shard] = s.Shard, dir
	}
	want := "vlm_reader:" + a.opt.Video.VLMName
	for _, dir := range a.opt.Merge {
		path := filepath.Join(dir, ProbeFile)
		b, err := checksum.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: %v", ProbeFile, err)}
		}
		var rec probeRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: %v", ProbeFile, err)}
		}
		if rec.Frames != ProbeFrames || rec.Model != want {
			return nil, nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: field frames %d, model %q: this merge's probe is %d frames of %q", ProbeFile, rec.Frames, rec.Model, ProbeFrames, want)}
		}
		m := make(map[string]probeEntry, len(rec.Items))
		for k, e := range rec.Items {
			if len(e.Scores) > 0 && e.Failed {
				return nil, nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: items[%d] (%q): field failed with scores", ProbeFile, k, e.Key)}
			}
			m[e.Key] = e
		}
		byShard[index[dir]] = m
	}
	out := make([][]float64, len(idx))
	failed := make([]bool, len(idx))
	var missing []int // positions in idx
	for k, i := range idx {
		it := a.items[i]
		m := byShard[of[i]]
		e, ok := m[it.Key()]
		if !ok {
			missing = append(missing, k)
			continue
		}
		failed[k] = e.Failed
		for j, x := range e.Scores {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, nil, &ShardError{Dir: dirOf[of[i]], Msg: fmt.Sprintf("%s: item %q: field scores[%d]: %v", ProbeFile, it.Key(), j, err)}
			}
			out[k] = append(out[k], v)
		}
	}
	if len(missing) > 0 {
		a.opt.Progress.Warn("merge: the shards hold no 128-frame probe of some items (shards made by an older vidscreen?); vlm_reader is asked here", "items", len(missing))
		sub := make([]*harness.Item, len(missing))
		for k, p := range missing {
			sub[k] = a.items[idx[p]]
		}
		s, f, err := a.probeScores(ctx, sub)
		if err != nil {
			return nil, nil, err
		}
		for k, p := range missing {
			out[p], failed[p] = s[k], f[k]
		}
	}
	return out, failed, nil
}
