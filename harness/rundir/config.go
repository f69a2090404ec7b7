package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// FormatVersion names the layout of a run directory (records, caches,
// outputs). A run directory written by another layout is refused.
// Version 2: orders are rotating splits, near-duplicates compare questions,
// the lexical embedder is fitted per benchmark. Version 3: a record names
// what its answer read of the video (Record.Input) and no failed item's
// answer is stored, every cache file has its checksum beside it, the video
// root is absolute, the models' names hold their models.json settings, and
// other stored results of this version changed meaning (clips validated,
// completion records).
const FormatVersion = "vidscreen-run/3"

// An Input is one file the run read, identified by its content so that a run
// directory refuses to resume over changed inputs (and accepts moved ones).
type Input struct {
	Name   string `json:"name"` // base name, for the reader
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// A ModelInput is an evaluated model's predictions file.
type ModelInput struct {
	Model string `json:"model"`
	Input
}

// A Config is the resolved configuration of a run, written to config.json.
// Everything that can change an output is in it; nothing else is (the
// worker count is not: outputs do not depend on it).
type Config struct {
	Format    string  `json:"format"`
	Items     []Input `json:"items"`
	Reference *Input  `json:"reference"`
	// VideoRoot is absolute and cleaned, so that "--videos W" and
	// "--videos $PWD/W" are one configuration; "" without a video root.
	VideoRoot string `json:"video_root"`
	Seed      uint64 `json:"seed"`
	// Sample is the --sample size per benchmark (0: every item);
	// SampleRule how the sample treats near-duplicates (harness.SampleRule;
	// absent without --sample), so that a run sampled under another rule is
	// not resumed as this one.
	Sample     int    `json:"sample"`
	SampleRule string `json:"sample_rule,omitempty"`
	// Dedup is the rule of the duplicates removed before the audit
	// (harness.DedupRule); absent with --no-dedup.
	Dedup string `json:"duplicates_before_audit,omitempty"`
	// YesNo says what became of the bare yes/no items: set aside (the
	// default, harness.YesNoRule) or kept (--keep-yesno), so that a run
	// is resumed and merged only under the same choice.
	YesNo string `json:"yes_no,omitempty"`

	Embedder string `json:"embedder"`
	// Confirm names the embedder that confirms near-duplicate pairs; empty
	// (and absent from config.json) when none does.
	Confirm string `json:"confirm_embedder,omitempty"`
	// LMReader names the lm_reader model (its files' hashes) the readers
	// asked; absent without one.
	LMReader string `json:"lm_reader,omitempty"`
	// LMReaderExtra names the later lm_reader entries (blind-reader#2, ...
	// ask them), in models.json's order; absent without any.
	LMReaderExtra []string `json:"lm_reader_extra,omitempty"`
	// Prompts names the wording the readers asked in: the Video-Index
	// authors' (letters.DefaultID) or a prompts.json's SHA-256
	// ("sha256:..."); absent without a reader.
	Prompts string `json:"prompts,omitempty"`
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
	// BenchmarkItems fingerprints each benchmark's items, so that a run is
	// extended only by benchmarks it has not audited.
	BenchmarkItems map[string]string `json:"benchmark_items"`
	// AttackerVersions holds each attacker's version (attack.Version): a
	// stored answer belongs to one version of its attacker, so a run is
	// neither resumed nor extended by another.
	AttackerVersions map[string]string `json:"attacker_versions"`
	// Shard names the shard of a split audit this run is, "i/N" (absent
	// from config.json otherwise): a shard's directory is not the whole
	// audit's, and a merge's config.json is the unsharded one.
	Shard string `json:"shard,omitempty"`
	// ServedModes records, per served role and model, the form its
	// server's first answer (the probe, models/openai's probeWith) decided:
	// log-probabilities or a generated reply, with or without the
	// prefilled answer turn. It is what the run found out, not what it was
	// asked to do: a run writes it when it learns a mode, before storing
	// answers of that mode, and a resumed or extended run takes the stored
	// one (Claim), so that its cards name the mode of the answers it
	// reads. Absent without a served reader, and in runs made before it
	// was kept here (their cache's served-modes.json holds it, and is still
	// read).
	ServedModes []ServedMode `json:"served_modes,omitempty"`
	// VerifyAnswers says how --verify-answers judged the marked answers;
	// absent without it.
	VerifyAnswers *VerifyAnswersConfig `json:"verify_answers,omitempty"`
}

// A ServedMode is one served reader's mode in config.json: the fields of
// metrics.ServedReader, which a card names.
type ServedMode struct {
	Role               string `json:"role"`
	Model              string `json:"model"`
	Mode               string `json:"mode"`
	Prefill            bool   `json:"prefill"`
	ChatTemplateKwargs string `json:"chat_template_kwargs,omitempty"`
}

// WriteConfig writes c to dir's config.json (EncodeConfig), atomically:
// how a run records the served readers' modes it learns.
func WriteConfig(dir string, c *Config) error {
	b, err := EncodeConfig(c)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ConfigFile), func(w io.Writer) error { _, err := w.Write(b); return err })
}

// VideoConfig is the part of config.json that names how the video features
// were made.
type VideoConfig struct {
	ImageText string   `json:"image_text"`
	Captioner string   `json:"captioner,omitempty"`
	Prep      string   `json:"preprocessing"`
	Size      string   `json:"decode_size"`
	Frames    int      `json:"frames"`
	Sets      []string `json:"frame_sets"`
	VLMReader string   `json:"vlm_reader,omitempty"`
	VLMSets   []string `json:"vlm_frame_sets,omitempty"`
	// ScreenReader names the screen_reader model the funnel's 32-frame
	// steps asked (absent when vlm_reader served them), ScreenSets its
	// frame sets.
	ScreenReader string   `json:"screen_reader,omitempty"`
	ScreenSets   []string `json:"screen_frame_sets,omitempty"`
	// VLMExtra names the later vlm_reader entries the diagnostic VLM
	// readers asked (centre-frame-reader#2, ...), in the list's order,
	// each with its frame sets and decode size.
	VLMExtra []string `json:"vlm_reader_extra,omitempty"`
	// ASR names the asr model the transcript attackers' transcripts were
	// made with (absent when none ran).
	ASR string `json:"asr,omitempty"`
}

// ReferenceModelConfig is the part of config.json that says how s* was
// computed by a local model.
type ReferenceModelConfig struct {
	VLMReader        string  `json:"vlm_reader"`
	Frames           int     `json:"frames"`
	ProbeFrames      int     `json:"probe_frames"`
	LongVideoSeconds float64 `json:"long_video_seconds"`
	Delta            float64 `json:"delta"`
	DecodeSize       string  `json:"decode_size"`

	// SecondReader names the second vlm_reader entry that gives the second
	// reference (the authors' sr_*); absent without one.
	SecondReader string `json:"second_reader,omitempty"`
}

// EncodeConfig gives the bytes of config.json: c indented by two spaces,
// with a final newline. A run is resumed only when these bytes are the
// stored ones.
func EncodeConfig(c *Config) ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return append(b, '\n'), nil
}

// ConfigMismatchError refuses to resume a run directory that was started
// with another configuration or other inputs.
type ConfigMismatchError struct {
	Dir    string
	Fields []string // top-level keys of config.json that differ
	// Format is the stored run's format when it is not this vidscreen's
	// (FormatVersion): its records and caches mean something else, so it
	// can be neither resumed nor extended.
	Format string
}

func (e *ConfigMismatchError) Error() string {
	if e.Format != "" {
		return fmt.Sprintf("%s holds a run of format %s, written by another version of vidscreen; this one writes %s, whose stored answers and caches mean something else (see FormatVersion in harness/rundir/config.go), so it cannot resume or extend it: audit into a new --out, or delete %s and run again", e.Dir, e.Format, FormatVersion, e.Dir)
	}
	return fmt.Sprintf("%s holds a run with a different configuration (%v differ); resume it with the same flags and inputs, extend it with more benchmarks, levels or models only, or choose another --out", e.Dir, e.Fields)
}

// ErrNotRunDir refuses to write into a directory that has files but no run.
var ErrNotRunDir = errors.New("not a vidscreen run directory")

// Claim makes dir the run directory of cfg: a new or empty directory gets
// config.json; one that already holds a run must hold this configuration,
// byte for byte (EncodeConfig), once cfg takes the served readers' modes
// the stored run recorded (Config.ServedModes) where it names none. It reports whether the run is being
// resumed. A run of another configuration is refused with a
// *ConfigMismatchError naming the top-level keys that differ, or the
// stored format when it is not cfg's; a directory with files but no
// config.json with ErrNotRunDir. The temporary files of an interrupted
// write are removed first, and LockFile, which the caller holds (Lock), is
// no reason to refuse.
func Claim(dir string, cfg *Config) (resumed bool, err error) {
	want, err := EncodeConfig(cfg)
	if err != nil {
		return false, err
	}
	path := filepath.Join(dir, ConfigFile)
	have, err := os.ReadFile(path)
	if err == nil && len(cfg.ServedModes) == 0 {
		// The modes are what the stored run learnt of its servers: cfg
		// takes them, and a resumed run reads answers of those modes.
		var stored struct {
			ServedModes []ServedMode `json:"served_modes"`
		}
		if json.Unmarshal(have, &stored) == nil && len(stored.ServedModes) > 0 {
			cfg.ServedModes = stored.ServedModes
			if want, err = EncodeConfig(cfg); err != nil {
				return false, err
			}
		}
	}
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
		return false, &ConfigMismatchError{Dir: dir, Fields: DiffKeys(have, want)}
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
		if atomicfile.IsTemp(e.Name()) {
			// config.json itself was being written when a run was killed.
			os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		if e.Name() != LockFile {
			return false, fmt.Errorf("%s: %w (it has files but no config.json); choose an empty or new --out", dir, ErrNotRunDir)
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(want); return err }); err != nil {
		return false, err
	}
	return false, nil
}

// DiffKeys lists, sorted, the top-level keys whose values differ between two
// JSON objects, as config.json holds them (all keys when either does not
// parse: then the one name "config.json").
func DiffKeys(a, b []byte) []string {
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

// VerifyAnswersConfig is the part of config.json that says how the
// answer-verification stage (harness/answercheck) judged the marked
// answers: the verifier, its two frame samplers, the short-video bound of
// its keep rule and the size frames were decoded at.
type VerifyAnswersConfig struct {
	VLMReader         string  `json:"vlm_reader"`
	FirstSampler      string  `json:"first_sampler"`
	RecheckSampler    string  `json:"recheck_sampler"`
	ShortVideoSeconds float64 `json:"short_video_seconds"`
	DecodeSize        string  `json:"decode_size"`
}
