package run

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// A Shard is one part i (0 <= Index < Count) of an audit split across
// processes or machines by the videos its items read. The shard does the
// expensive work (decode and image-model inference) of its videos only;
// Merge then runs the stages that look across items.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/N" (0 <= i < N).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/N, as 0/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.check()
}

func (s Shard) check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want 0 <= i < N", s.Index, s.Count)
	}
	return nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// VideoShard returns the shard of count that holds it's video: the first 8
// bytes of the SHA-256 of the video's path relative to root (as the feature
// stage resolves it), as a big-endian integer, modulo count. (A hash with
// weak low bits, as FNV-1a's, would split w0001.mp4, w0002.mp4, ... by the
// parity of their last digit.) An item that names no video is placed by
// its key (harness.Item.Key) instead. Items of one video always land in the same shard,
// because the feature stage plans and caches a video's frames for all its
// items at once. An item whose video does not resolve is placed by its
// video_path, else video, as written: it fails wherever it runs.
func VideoShard(root string, it *harness.Item, count int) int {
	key := it.VideoPath
	if key == "" {
		key = it.Video
	}
	if key == "" {
		// An item of no video (the text levels' benchmarks may have
		// none): placed by its key, so that the model readers' prompts
		// of such a benchmark spread over the shards.
		key = "item\x00" + it.Key()
	}
	if root != "" {
		if p, err := harness.ResolveVideo(root, it); err == nil {
			if rel, err := filepath.Rel(root, p); err == nil {
				key = filepath.ToSlash(rel)
			}
		}
	}
	sum := sha256.Sum256([]byte(key))
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(count))
}

// A ShardSummary is the content of rundir.ShardFile.
type ShardSummary struct {
	Shard  int `json:"shard"`
	Shards int `json:"shards"`
	// Items is the number of the run's items whose videos fall in this
	// shard; Of the number of items the whole audit has.
	Items int `json:"items"`
	Of    int `json:"of"`
	// Videos records each video of the shard: its path relative to the
	// video root and, when it failed, why (merge tries it again and fails
	// it the same way). Absent at the text levels, which have no videos.
	Videos []ShardVideo `json:"videos,omitempty"`
	// Spec is the audit's Spec as Spec.ShardSpec gives it (paths made
	// absolute, the fields of one process left out): merge checks that
	// every shard holds the same one and runs the audit it describes.
	Spec *Spec `json:"spec"`
}

// A ShardVideo is one video of a shard.
type ShardVideo struct {
	Path    string `json:"path"`
	Failure string `json:"failure,omitempty"`
}

// ReadShard reads the rundir.ShardFile of a shard's run directory.
func ReadShard(dir string) (*ShardSummary, error) {
	b, err := os.ReadFile(filepath.Join(dir, rundir.ShardFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ShardError{Dir: dir, Msg: "no " + rundir.ShardFile + ": not a shard run directory, or its shard has not finished (run its audit --shard again to resume it)"}
		}
		return nil, err
	}
	var s ShardSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: %v", rundir.ShardFile, err)}
	}
	if err := (Shard{s.Shard, s.Shards}).check(); err != nil {
		return nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: %v", rundir.ShardFile, err)}
	}
	return &s, nil
}

// ShardError refuses a set of shard directories that cannot be merged: one
// that is not a finished shard, shards of different audits, a shard given
// twice or one missing.
type ShardError struct {
	Dir string
	Msg string
}

func (e *ShardError) Error() string {
	if e.Dir == "" {
		return "merge: " + e.Msg
	}
	return "merge: " + e.Dir + ": " + e.Msg
}

// shardRun is an Audit with opt.Shard set: the feature stage on the items
// whose videos fall in the shard, then rundir.ShardFile. Nothing that looks across
// items runs here; the shard's cache holds what Merge reads.
func (a *audit) shardRun(ctx context.Context, p *plan) (*Result, error) {
	started := p.started
	sh := *a.opt.Shard
	// rundir.ShardFile marks a finished shard: until this run finishes, the
	// directory is not one (merge refuses it), whatever an earlier run
	// wrote.
	if err := os.Remove(filepath.Join(a.opt.Out, rundir.ShardFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var mine []*harness.Item
	isMine := make([]bool, len(a.items))
	for i, it := range a.items {
		if VideoShard(a.opt.VideoRoot, it, sh.Count) == sh.Index {
			mine = append(mine, it)
			isMine[i] = true
		}
	}
	sum := ShardSummary{Shard: sh.Index, Shards: sh.Count, Items: len(mine), Of: len(a.items), Spec: a.opt.Spec}
	t0 := time.Now()
	needs := needsOf(a.attackers)
	vsets := a.opt.allVLMSets(needs)
	if (needs != 0 || len(vsets) > 0) && len(mine) > 0 {
		fopt := a.featureOptions(needs, vsets)
		mtr := newFeatureMeter(a.opt.Progress)
		fopt.Progress = mtr.add
		fr, err := features.Extract(ctx, mine, fopt)
		mtr.end(err == nil)
		if err != nil {
			return nil, a.interrupted(ctx, err)
		}
		a.res.Features = &fr.Stats
		for _, d := range fr.Stats.Damaged {
			a.cacheDamaged(d)
		}
		seen := map[string]bool{}
		for k, it := range mine {
			f := fr.Items[k]
			path := it.VideoPath
			if path == "" {
				path = it.Video
			}
			if f.Video >= 0 {
				if rel, err := filepath.Rel(a.opt.VideoRoot, fr.Videos[f.Video].Path); err == nil {
					path = filepath.ToSlash(rel)
				}
			}
			if !seen[path] {
				seen[path] = true
				sum.Videos = append(sum.Videos, ShardVideo{Path: path, Failure: f.Failure})
			}
		}
		var hashes []string
		var heard []transcriptEntry
		if needs.Has(attack.NeedTranscript) && a.opt.Video.ASR != nil {
			// The transcripts go to the shard's cache, which merge reads.
			if hashes, heard, err = a.hear(ctx, fr); err != nil {
				return nil, a.interrupted(ctx, err)
			}
		}
		a.shardVisual(fr, isMine, needs, hashes, heard)
		st := fr.Stats
		a.opt.Progress.Note("shard features done", "shard", sh.String(), "items", len(mine), "videos", st.Videos, "cached", st.Cached,
			"computed", st.Computed, "failed", st.Failed)
	}
	a.stage("features", t0)
	// The model readers ask about the shard's items here, where the
	// servers are, so that merge asks nothing.
	if err := a.shardReaders(ctx, p, isMine); err != nil {
		return nil, err
	}
	// The reference model's 128-frame probe of the shard's items, where
	// it could be needed, for the same reason (referenceshard.go).
	if err := a.shardProbe(ctx, isMine); err != nil {
		return nil, err
	}
	// The verifier too asks about the shard's items only.
	if err := a.verifyAnswers(ctx, isMine); err != nil {
		return nil, err
	}
	if err := a.secondReference(ctx, isMine); err != nil {
		return nil, err
	}
	// The served readers' modes, which merge puts together for the cards
	// (mergeServedModes).
	if _, err := a.servedModes(); err != nil {
		return nil, err
	}
	a.res.Items = len(mine)
	a.res.Shard = &sum
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(a.opt.Out, rundir.ShardFile), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return nil, err
	}
	a.res.Outputs = []string{rundir.ConfigFile, rundir.ShardFile}
	if _, err := os.Stat(filepath.Join(a.opt.Out, ProbeFile)); err == nil && a.opt.ReferenceModel {
		a.res.Outputs = append(a.res.Outputs, ProbeFile)
	}
	if err := a.complete(started); err != nil {
		return nil, err
	}
	return a.res, nil
}

// interrupted words an error of the feature stage: a cancelled run says
// that what is stored stays.
func (a *audit) interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
	}
	return err
}
