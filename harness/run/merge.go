package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// seedFromShards is the merge stage of a run with Options.Merge set (it
// does nothing otherwise): it puts every file of the shards' caches into
// the run's (seedCache), so that the feature stage decodes nothing they
// hold, and records the stage's time with checked, the time the plan stage
// took to check the shards (checkShards). res.Seeded counts the files.
func (a *audit) seedFromShards(checked time.Duration) error {
	if len(a.opt.Merge) == 0 {
		return nil
	}
	tm := time.Now()
	var err error
	if a.res.Seeded, err = seedCache(a.opt.Out, a.opt.Merge); err != nil {
		return err
	}
	a.opt.Progress.Note("merge: cache seeded from the shards", "shards", len(a.opt.Merge), "files", a.res.Seeded)
	// The check of the shards and the seeding of the cache.
	a.res.Stages = append(a.res.Stages, Stage{"merge", checked + time.Since(tm)})
	return nil
}

// checkShards reads the shard directories opt.Merge names and checks that
// they are the shards 0..N-1 of one audit, the audit of cfg: each
// config.json, less its "shard" key, must equal cfg.
func checkShards(dirs []string, cfg *rundir.Config) error {
	want, err := rundir.EncodeConfig(cfg)
	if err != nil {
		return err
	}
	byIndex := map[int]string{}
	count := 0
	for _, dir := range dirs {
		s, err := ReadShard(dir)
		if err != nil {
			return err
		}
		if count == 0 {
			count = s.Shards
		} else if s.Shards != count {
			return &ShardError{Dir: dir, Msg: fmt.Sprintf("shard %d/%d of a %d-way split, but %s is of a %d-way split", s.Shard, s.Shards, s.Shards, dirs[0], count)}
		}
		if prev, ok := byIndex[s.Shard]; ok {
			return &ShardError{Dir: dir, Msg: fmt.Sprintf("shard %d/%d given twice (also %s)", s.Shard, s.Shards, prev)}
		}
		byIndex[s.Shard] = dir
		have, err := os.ReadFile(filepath.Join(dir, rundir.ConfigFile))
		if err != nil {
			return &ShardError{Dir: dir, Msg: err.Error()}
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(have, &m); err != nil {
			return &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: %v", rundir.ConfigFile, err)}
		}
		if string(m["shard"]) != strconv.Quote(Shard{s.Shard, s.Shards}.String()) {
			return &ShardError{Dir: dir, Msg: fmt.Sprintf("%s names shard %s, %s shard %d/%d", rundir.ConfigFile, m["shard"], rundir.ShardFile, s.Shard, s.Shards)}
		}
		delete(m, "shard")
		base, err := json.Marshal(m)
		if err != nil {
			return err
		}
		if d := rundir.DiffKeys(base, want); len(d) > 0 {
			return &ShardError{Dir: dir, Msg: fmt.Sprintf("a shard of another audit (%v differ from this merge's)", d)}
		}
	}
	var missing []string
	for i := 0; i < count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, Shard{i, count}.String())
		}
	}
	if len(missing) > 0 {
		return &ShardError{Msg: fmt.Sprintf("shards %s missing (each of 0..%d of the %d-way split must be given once)", strings.Join(missing, ", "), count-1, count)}
	}
	return nil
}

// seedCache puts every file of each shard's cache into dir's cache, as a
// hard link where the file systems allow (else a copy), so that the feature
// stage of the merge finds every video's features there. Files already
// present are kept: a cache entry's name is its content key.
func seedCache(out string, shards []string) (int, error) {
	dst := filepath.Join(out, rundir.CacheDir)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	n := 0
	for _, dir := range shards {
		src := filepath.Join(dir, rundir.CacheDir)
		entries, err := os.ReadDir(src)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("merge: read %s: %w", src, err)
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || atomicfile.IsTemp(e.Name()) {
				continue
			}
			to := filepath.Join(dst, e.Name())
			if _, err := os.Lstat(to); err == nil {
				continue
			}
			from := filepath.Join(src, e.Name())
			if err := os.Link(from, to); err != nil {
				if err := copyFile(from, to); err != nil {
					return n, fmt.Errorf("merge: %w", err)
				}
			}
			n++
		}
	}
	return n, nil
}

// copyFile copies a cache file atomically.
func copyFile(from, to string) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	return atomicfile.Write(to, func(w io.Writer) error { _, err := io.Copy(w, f); return err })
}
