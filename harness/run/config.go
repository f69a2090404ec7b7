package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// formatVersion names the layout of a run directory (records, caches,
// outputs). A run directory written by another layout is refused.
// Version 2: orders are rotating splits, near-duplicates compare questions,
// the lexical embedder is fitted per benchmark. Version 3: a record names
// what its answer read of the video (Record.Input) and no failed item's
// answer is stored, every cache file has its checksum beside it, the video
// root is absolute, the models' names hold their models.json settings, and
// other stored results of this version changed meaning (clips validated,
// completion records).
const formatVersion = "vidscreen-run/3"

// An Input is one file the run read, identified by its content so that a run
// directory refuses to resume over changed inputs (and accepts moved ones).
type Input struct {
	Name   string `json:"name"` // base name, for the reader
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// A Config is the resolved configuration of a run, written to config.json.
// Everything that can change an output is in it; nothing else is (the
// worker count is not: outputs do not depend on it).
type Config struct {
	Format    string  `json:"format"`
	Items     []Input `json:"items"`
	Reference *Input  `json:"reference"`
	VideoRoot string  `json:"video_root"`
	Seed      uint64  `json:"seed"`
	// Sample is the --sample size per benchmark (0: every item);
	// SampleRule how the sample treats near-duplicates (harness.SampleRule;
	// absent without --sample), so that a run sampled under another rule is
	// not resumed as this one.
	Sample     int    `json:"sample"`
	SampleRule string `json:"sample_rule,omitempty"`
	Embedder   string `json:"embedder"`
	// Confirm names the embedder that confirms near-duplicate pairs; empty
	// (and absent from config.json) when none does.
	Confirm string `json:"confirm_embedder,omitempty"`
	// LMReader names the lm_reader model (its files' hashes) the readers
	// asked; absent without one.
	LMReader string `json:"lm_reader,omitempty"`
	// LMReaderExtra names the later lm_reader entries (blind-reader#2, ...
	// ask them), in models.json's order; absent without any.
	LMReaderExtra []string `json:"lm_reader_extra,omitempty"`
	// Videos names how the video features were made; absent when no frame
	// or order attacker ran.
	Videos *VideoConfig `json:"videos,omitempty"`
	// ReferenceModel says how --reference-model computed s*; absent
	// without it.
	ReferenceModel *ReferenceModelConfig `json:"reference_model,omitempty"`
	Attack         attack.Config         `json:"attack"`
	Duplicates     float32               `json:"duplicate_threshold"`
	// DuplicateText names the text whose embeddings near-duplicates compare.
	DuplicateText string `json:"duplicate_text"`
	Bootstrap     int    `json:"bootstrap_reps"`
	// Benchmarks and Limit pick items from the files (absent from
	// config.json when every item is audited).
	Benchmarks []string `json:"benchmarks,omitempty"`
	Limit      int      `json:"limit,omitempty"`
	// Models are the evaluated models' predictions files.
	Models []ModelInput `json:"models,omitempty"`
	// BenchmarkItems fingerprints each benchmark's items (benchmarkItems),
	// so that a run is extended only by benchmarks it has not audited.
	BenchmarkItems map[string]string `json:"benchmark_items"`
	// AttackerVersions holds each attacker's version (attack.Version): a
	// stored answer belongs to one version of its attacker, so a run is
	// neither resumed nor extended by another.
	AttackerVersions map[string]string `json:"attacker_versions"`
	// Shard names the shard of a split audit this run is, "i/N" (absent
	// from config.json otherwise): a shard's directory is not the whole
	// audit's, and a merge's config.json is the unsharded one.
	Shard string `json:"shard,omitempty"`
}

// canonicalRoot is the form of a video root config.json keeps: absolute
// and cleaned, so that "--videos W" and "--videos $PWD/W" are one
// configuration, and merge, which runs the shards' audit from the absolute
// paths they recorded (Spec.ShardSpec), finds it equal to
// each shard's. "" (no video root) stays "".
func canonicalRoot(root string) (string, error) {
	if root == "" {
		return "", nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("video root %s: %w", root, err)
	}
	return abs, nil
}

// A ModelInput is an evaluated model's predictions file.
type ModelInput struct {
	Model string `json:"model"`
	Input
}

// hashInput fingerprints a predictions file, which regularInput checked.
func hashInput(name string) (Input, error) {
	f, err := os.Open(name)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Input{}, fmt.Errorf("hash %s: %w", name, err)
	}
	return Input{Name: filepath.Base(name), SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// regularInput refuses a predictions file that is not a regular file: it
// is read, then hashed, so a FIFO or pipe would be empty (or block) the
// second time. (Items files are hashed as read and may be pipes.)
func regularInput(name string) error {
	st, err := os.Stat(name)
	if err != nil {
		return &harness.ParseError{File: name, Err: err}
	}
	if !st.Mode().IsRegular() {
		return &harness.ParseError{File: name, Err: fmt.Errorf("%w: not a regular file (%v); predictions are read twice (read, then hashed): write them to a file first", harness.ErrNotAFile, st.Mode().Type())}
	}
	return nil
}

// inputOf is the Input of the bytes a reader consumed.
func inputOf(d harness.Digest) Input {
	return Input{Name: filepath.Base(d.Name), SHA256: d.SHA256, Size: d.Size}
}

// ConfigMismatchError refuses to resume a run directory that was started
// with another configuration or other inputs.
type ConfigMismatchError struct {
	Dir    string
	Fields []string // top-level keys of config.json that differ
	// Format is the stored run's format when it is not this vidscreen's
	// (formatVersion): its records and caches mean something else, so it
	// can be neither resumed nor extended.
	Format string
}

func (e *ConfigMismatchError) Error() string {
	if e.Format != "" {
		return fmt.Sprintf("%s holds a run of format %s, written by another version of vidscreen; this one writes %s, whose stored answers and caches mean something else (see formatVersion in harness/run/config.go), so it cannot resume or extend it: audit into a new --out, or delete %s and run again", e.Dir, e.Format, formatVersion, e.Dir)
	}
	return fmt.Sprintf("%s holds a run with a different configuration (%v differ); resume it with the same flags and inputs, extend it with more benchmarks, levels or models only, or choose another --out", e.Dir, e.Fields)
}

// ErrNotRunDir refuses to write into a directory that has files but no run.
var ErrNotRunDir = errors.New("not a vidscreen run directory")

// encodeConfig gives the bytes of config.json.
func encodeConfig(c *Config) ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return append(b, '\n'), nil
}

// claimDir makes dir the run directory of cfg: a new or empty directory gets
// config.json; one that already holds a run must hold this configuration.
// It reports whether the run is being resumed.
func claimDir(dir string, cfg *Config) (resumed bool, err error) {
	want, err := encodeConfig(cfg)
	if err != nil {
		return false, err
	}
	path := filepath.Join(dir, "config.json")
	have, err := os.ReadFile(path)
	switch {
	case err == nil:
		if bytes.Equal(have, want) {
			return true, nil
		}
		var stored struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(have, &stored) == nil && stored.Format != cfg.Format {
			return false, &ConfigMismatchError{Dir: dir, Fields: []string{"format"}, Format: fmt.Sprintf("%q", stored.Format)}
		}
		return false, &ConfigMismatchError{Dir: dir, Fields: diffKeys(have, want)}
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("read run config: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create run directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("read run directory: %w", err)
	}
	for _, e := range entries {
		if isTemp(e.Name()) {
			// config.json itself was being written when a run was killed.
			os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		if e.Name() != lockName {
			return false, fmt.Errorf("%s: %w (it has files but no config.json); choose an empty or new --out", dir, ErrNotRunDir)
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(want); return err }); err != nil {
		return false, err
	}
	return false, nil
}

// diffKeys lists the top-level keys whose values differ between two JSON
// objects (all keys when either does not parse).
func diffKeys(a, b []byte) []string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return []string{"config.json"}
	}
	var out []string
	for k, v := range mb {
		if !bytes.Equal(compact(ma[k]), compact(v)) {
			out = append(out, k)
		}
	}
	for k := range ma {
		if _, ok := mb[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
