package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// MergeSpec reads the shard run directories dirs (the shards 0..N-1 of one
// audit, each finished: rundir.ShardFile and its completion record) and returns
// the Spec of the audit that merges them: the Spec every shard stored,
// with Merge naming dirs and the fields of one process, which no shard
// stores, at DefaultSpec's values; the caller sets Out and may set those
// (Workers, Device, progress). A directory that is not a finished
// shard, or shards of different Specs, are a *ShardError naming the
// directory and the fields that differ; Run then checks that the shards
// are 0..N-1, each once.
func MergeSpec(dirs []string) (Spec, error) {
	if len(dirs) == 0 {
		return Spec{}, &ShardError{Msg: "no shard run directories to merge"}
	}
	var first []byte
	var spec Spec
	for k, dir := range dirs {
		s, err := ReadShard(dir)
		if err != nil {
			return Spec{}, err
		}
		// A shard killed before it finished has no completion record; its
		// shard.json may be another run's.
		if _, err := completion.Check(dir); err != nil {
			return Spec{}, &ShardError{Dir: dir, Msg: err.Error()}
		}
		if s.Spec == nil {
			return Spec{}, &ShardError{Dir: dir, Msg: fmt.Sprintf("%s holds no audit spec (made by an older vidscreen): merge with the vidscreen that made the shards", rundir.ShardFile)}
		}
		b, err := json.Marshal(s.Spec)
		if err != nil {
			return Spec{}, err
		}
		if k == 0 {
			first, spec = b, *s.Spec
			continue
		}
		if !bytes.Equal(b, first) {
			return Spec{}, &ShardError{Dir: dir, Msg: fmt.Sprintf("made by another audit than %s: its spec differs in %s", dirs[0], strings.Join(specDiff(first, b), ", "))}
		}
	}
	def := DefaultSpec()
	spec.Precision, spec.OffloadMinWork, spec.LogFormat = def.Precision, def.OffloadMinWork, def.LogFormat
	spec.Merge = make([]string, len(dirs))
	for k, dir := range dirs {
		spec.Merge[k] = filepath.Clean(dir)
	}
	return spec, nil
}

// specDiff lists the fields (by their JSON names) whose values differ
// between two encoded Specs.
func specDiff(a, b []byte) []string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return []string{"spec"}
	}
	var out []string
	for k, v := range mb {
		if !bytes.Equal(ma[k], v) {
			out = append(out, k)
		}
	}
	for k := range ma {
		if _, ok := mb[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
