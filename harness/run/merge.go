package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
	"github.com/vidscreen/vidscreen/internal/checksum"
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
	modes, err := mergeServedModes(a.opt.Merge, a.opt.Progress)
	if err != nil {
		return err
	}
	if len(modes) > 0 && !slices.Equal(modes, fromConfigModes(a.cfg.ServedModes)) {
		// The merge's config.json names the modes the shards' servers
		// gave, as the unsharded audit's names its own.
		a.cfg.ServedModes = toConfigModes(modes)
		if err := rundir.WriteConfig(a.opt.Out, &a.cfg); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
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
		// What the shard learnt of its servers is no part of the audit
		// the merge checks: the merge puts the modes together
		// (mergeServedModes).
		delete(m, "shard")
		delete(m, "served_modes")
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
			switch e.Name() {
			case rundir.ServedModesFile:
				continue // every shard's, put together (mergeServedModes)
			case ServedStoreFile:
				continue // one file per shard, of replies a merge does not ask
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

// shardOf is the shard of each item of a merge (VideoShard over the
// shards Options.Merge names), computed once.
func (a *audit) shardOf() []int {
	a.split.once.Do(func() {
		n := len(a.opt.Merge)
		a.split.of = make([]int, len(a.items))
		for i, it := range a.items {
			a.split.of[i] = VideoShard(a.opt.VideoRoot, it, n)
		}
	})
	return a.split.of
}

// shardPermutation puts together, in a merge, the choices and margins of
// attacker at on option order o from the files its shards wrote, each for
// its own items (shardPermutations); ok is false when a shard's file is
// missing (its server failed on an item, say), and the merge then asks.
// items are the merge's, a.items.
func (a *audit) shardPermutation(at attack.Attacker, o int, items []*harness.Item) (choices []int, margins []float64, ok bool) {
	of := a.shardOf()
	choices, margins = make([]int, len(items)), make([]float64, len(items))
	for s := range a.opt.Merge {
		var idx []int
		var keys []string
		for i := range items {
			if of[i] == s {
				idx, keys = append(idx, i), append(keys, a.permutationKey(at, i, true))
			}
		}
		if len(idx) == 0 {
			continue
		}
		b, err := checksum.ReadFile(rundir.PermutationFile(a.opt.Out, at.Name(), a.opt.Seed, o, keys))
		if err != nil {
			return nil, nil, false
		}
		c, m, err := rundir.DecodePermutation(b, len(idx))
		if err != nil || m == nil {
			return nil, nil, false
		}
		for k, i := range idx {
			if c[k] < 0 || c[k] >= len(items[i].Options) {
				return nil, nil, false
			}
			choices[i], margins[i] = c[k], m[k]
		}
	}
	return choices, margins, true
}

// importShardRecords is the merge's part of the records stage: it files
// the answers each shard's readers stored (shardReaders) under the
// merge's units and appends them to the merge's record file, so that the
// attack stage finds them stored and asks no model. An answer the merge
// already holds is kept (a resumed merge); a record of no unit or item of
// this audit is an error naming the shard.
func (a *audit) importShardRecords() error {
	if len(a.opt.Merge) == 0 {
		return nil
	}
	index := make(map[string]int, len(a.items))
	for i, it := range a.items {
		index[it.Key()] = i
	}
	type uk struct {
		name    string
		variant int
	}
	byKey := map[uk]*unit{}
	for _, u := range a.units {
		byKey[uk{a.attackers[u.attacker].Name(), u.variant}] = u
	}
	n := 0
	for _, dir := range a.opt.Merge {
		path := filepath.Join(dir, rundir.RecordsFile)
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		var batch []rundir.Record
		rr := rundir.NewRecordReader(f)
		for {
			r, err := rr.Read()
			var bad *rundir.RecordError
			if err == io.EOF || errors.As(err, &bad) {
				break // a finished shard has no torn tail; a torn one ends here
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("merge: read %s: %w", path, err)
			}
			u, ok := byKey[uk{r.Attacker, r.Variant}]
			i, ok2 := index[r.Key]
			if !ok || !ok2 {
				f.Close()
				return &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: a record of %s variant %d for item %q matches nothing in this audit", rundir.RecordsFile, r.Attacker, r.Variant, r.Key)}
			}
			if u.ans.has(int32(i)) {
				continue
			}
			u.stored++
			u.ans.put(int32(i), a.items[i], r.Pred)
			if u.ans.input != nil {
				u.ans.input[i] = inputID(r.Input)
			}
			batch = append(batch, r)
			n++
			if len(batch) == recordBatch {
				if err := a.store.Append(batch); err != nil {
					f.Close()
					return err
				}
				batch = batch[:0]
			}
		}
		f.Close()
		if err := a.store.Append(batch); err != nil {
			return err
		}
	}
	if n > 0 {
		a.opt.Progress.Note("merge: the shards' readers' answers taken", "records", n)
	}
	return nil
}

// mergeServedModes returns the served readers' modes the shards recorded
// (rundir.Config.ServedModes of each config.json, else an older shard's
// rundir.ServedModesFile): a role and model's mode is the first shard's
// that names one, by shard index, so the cards of the merge, which asks no
// model, name the modes the shards' servers gave, as the unsharded audit's
// do. Shards whose servers gave one role different modes make a merge
// whose cards differ from any unsharded audit's: the warning says which.
// It returns nil when no shard recorded a mode.
func mergeServedModes(shards []string, rep interface{ Warn(string, ...any) }) ([]metrics.ServedReader, error) {
	// By shard index, whatever order the directories were given in.
	shards = slices.Clone(shards)
	index := map[string]int{}
	for _, dir := range shards {
		if s, err := ReadShard(dir); err == nil {
			index[dir] = s.Shard
		}
	}
	slices.SortStableFunc(shards, func(x, y string) int { return index[x] - index[y] })
	var all []metrics.ServedReader
	for _, dir := range shards {
		rs, err := shardServedModes(dir)
		if err != nil {
			return nil, err
		}
	next:
		for _, r := range rs {
			for k, have := range all {
				if have.Role != r.Role || have.Model != r.Model {
					continue
				}
				switch {
				case have.Mode == "":
					all[k] = r
				case r.Mode != "" && r != have:
					rep.Warn("merge: the shards' servers answered one served reader in different modes; the merge names the first", "role", r.Role, "model", r.Model,
						"mode", have.Mode, "other", r.Mode, "shard", dir)
				}
				continue next
			}
			all = append(all, r)
		}
	}
	if !anyMode(all) {
		return nil, nil
	}
	return all, nil
}

// shardServedModes reads the modes a shard recorded: its config.json's
// served_modes, else (a shard made before they were kept there) its cache's
// rundir.ServedModesFile; nil when it has neither.
func shardServedModes(dir string) ([]metrics.ServedReader, error) {
	b, err := os.ReadFile(filepath.Join(dir, rundir.ConfigFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err == nil {
		var cfg struct {
			ServedModes []rundir.ServedMode `json:"served_modes"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: field served_modes: %v", rundir.ConfigFile, err)}
		}
		if len(cfg.ServedModes) > 0 {
			return fromConfigModes(cfg.ServedModes), nil
		}
	}
	b, err = os.ReadFile(filepath.Join(dir, rundir.CacheDir, rundir.ServedModesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	var rs []metrics.ServedReader
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s: %v", rundir.ServedModesFile, err)}
	}
	return rs, nil
}
