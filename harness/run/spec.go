package run

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// A Spec is everything an audit is asked, as plain data: each field is one
// flag of vidscreen audit (named in its comment), and a Spec encodes to and
// from JSON. A command builds one from its flags; a shard stores its own in
// rundir.ShardFile, which merge reads back; a Go program builds one in code.
// Open turns a Spec into a Job: its models, servers, devices and searches
// placed. DefaultSpec holds the flags' defaults.
type Spec struct {
	// Items are the item files (--items: JSONL, or Parquet by its .parquet
	// name), read in this order; none audits the embedded demo.
	Items []string `json:"items,omitempty"`
	// Benchmarks keeps only these benchmarks' items (--benchmarks).
	Benchmarks []string `json:"benchmarks,omitempty"`
	// Limit keeps the first Limit items of each benchmark (--limit; 0 all).
	Limit int `json:"limit,omitempty"`
	// Sample draws at most Sample items per benchmark (--sample; 0 all).
	Sample int `json:"sample,omitempty"`
	// KeepYesNo audits bare yes/no items instead of setting them aside
	// (--keep-yesno); NoDedup turns off the duplicates removed before the
	// audit (--no-dedup).
	KeepYesNo bool `json:"keep_yesno,omitempty"`
	NoDedup   bool `json:"no_dedup,omitempty"`
	// Videos is the root the items' videos resolve under (--videos).
	Videos string `json:"videos,omitempty"`
	// Reference is a reference model's answers (--reference).
	Reference string `json:"reference,omitempty"`
	// ReferenceModel computes s* with the vlm_reader role
	// (--reference-model).
	ReferenceModel bool `json:"reference_model,omitempty"`
	// VerifyAnswers runs the answer-verification stage with the vlm_reader
	// role (--verify-answers).
	VerifyAnswers bool `json:"verify_answers,omitempty"`
	// Predictions are evaluated models' answers (--predictions NAME=FILE).
	Predictions []ModelFile `json:"predictions,omitempty"`
	// IndexBase reads a digit-only reply as an index from 0 or 1
	// (--index-base); nil refuses such a reply.
	IndexBase *int `json:"index_base,omitempty"`
	// Levels are the levels to run (--levels); none: option, text and
	// pool, and all five when Videos and Models are set.
	Levels []string `json:"levels,omitempty"`
	// Frames is the uniform frames the frame and order attackers read
	// (--frames).
	Frames int `json:"frames"`
	// Permutations is the option permutations each model reader scores
	// (--permutations; 0 none).
	Permutations int `json:"permutations"`
	// CrossPool runs copy-xpool and knn-vote-xpool (--cross-pool).
	CrossPool bool `json:"cross_pool,omitempty"`
	// Models is the models folder holding models.json (--models).
	Models string `json:"models,omitempty"`
	// Device is where the models and searches run (--device; the zero
	// value is the CPU). It encodes as the flag's text ("cuda:0,1").
	Device gpu.Spec `json:"device"`
	// Precision is the GPU's tile precision for the searches (--precision:
	// fp32, tf32 or bf16; "" fp32).
	Precision string `json:"precision,omitempty"`
	// OffloadMinWork is the smallest search sent to a GPU
	// (--offload-min-work).
	OffloadMinWork int64 `json:"offload_min_work,omitempty"`
	// DeviceMemory is each device's memory budget in bytes
	// (--device-memory; 0: 90% of each GPU's free memory, none on the CPU).
	DeviceMemory uint64 `json:"device_memory,omitempty"`
	// FramePath is how the image tower gets its frames (--frame-path:
	// host or device).
	FramePath string `json:"frame_path,omitempty"`
	// FrameResize is what resizes the host frames the ONNX image roles
	// read (--frame-resize): FrameResizeProcessor ("" too) decodes them at
	// display size and lets each role's processor resize them as
	// transformers does; FrameResizeFFmpeg has FFmpeg scale them to the
	// largest input side first (faster, less memory, an approximation).
	FrameResize string `json:"frame_resize,omitempty"`
	// VideoTimeout fails a video's items when opening and decoding it
	// takes longer (--video-timeout; 0 no limit).
	VideoTimeout time.Duration `json:"video_timeout"`
	// Out is the run directory (--out).
	Out string `json:"out,omitempty"`
	// LogFormat is the progress lines' format off a terminal
	// (--log-format: text or json).
	LogFormat string `json:"log_format,omitempty"`
	// Quiet writes no progress (--quiet).
	Quiet bool `json:"quiet,omitempty"`
	// Seed seeds the orders, guesses and bootstrap (--seed).
	Seed uint64 `json:"seed"`
	// Workers is the units of work run at once (--workers; 0 one per CPU).
	Workers int `json:"workers,omitempty"`
	// MaxServerFailures is the share of a served role's queries its server
	// may fail in a run that exits 0 (--max-server-failures, from 0 to 1;
	// 0 means DefaultMaxServerFailures). It changes no output, only the
	// exit status.
	MaxServerFailures float64 `json:"max_server_failures,omitempty"`
	// Shard makes the run one shard of a split audit (--shard i/N).
	Shard *Shard `json:"shard,omitempty"`
	// Merge names the shard directories this run merges (vidscreen
	// merge's arguments).
	Merge []string `json:"merge,omitempty"`
}

// DefaultSpec is the Spec of vidscreen audit with no flags but --out: the
// defaults every flag shows in its help.
func DefaultSpec() Spec {
	return Spec{
		Frames:         32,
		Permutations:   attack.OptionPermutations,
		Precision:      "fp32",
		OffloadMinWork: kernels.DefaultMinWork,
		FramePath:      "host",
		FrameResize:    FrameResizeProcessor,
		VideoTimeout:   10 * time.Minute,
		LogFormat:      "text",
		Seed:           1,
	}
}

// MaxFrames bounds Frames: a VLM prompt of more frames than this fits no
// model's context, and each frame is decoded and embedded per clip.
const MaxFrames = 1024

// MaxPermutations bounds Permutations: each permutation is one more prompt
// per item and model reader.
const MaxPermutations = 64

// levels returns the levels s runs: its own, else the default (every
// level when the video levels can run).
func (s *Spec) levels() ([]harness.Level, error) {
	names := s.Levels
	if len(names) == 0 {
		names = []string{"option", "text", "pool"}
		if s.Videos != "" && s.Models != "" {
			names = append(names, "frame", "order")
		}
	}
	var out []harness.Level
	for _, n := range names {
		l, err := harness.ParseLevel(n)
		if err != nil {
			return nil, harness.Usagef("--levels: %v", err)
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

// videoLevels reports whether levels holds frame or order.
func videoLevels(levels []harness.Level) bool {
	return slices.Contains(levels, harness.LevelFrame) || slices.Contains(levels, harness.LevelOrder)
}

// Validate says what in s cannot run, naming the flag; it reads no file.
func (s *Spec) Validate() error {
	switch {
	case s.Out == "":
		return harness.Usagef("--out DIR is required")
	case s.Workers < 0:
		return harness.Usagef("--workers must be 0 or more")
	case s.Sample < 0:
		return harness.Usagef("--sample must be 0 (every item) or more")
	case s.Permutations < 0 || s.Permutations > MaxPermutations:
		return harness.Usagef("--permutations %d: want 0 (no permutation audit) to %d", s.Permutations, MaxPermutations)
	case s.Frames < 1 || s.Frames > MaxFrames:
		return harness.Usagef("--frames must be from 1 to %d, got %d", MaxFrames, s.Frames)
	}
	lv, err := s.levels()
	if err != nil {
		return err
	}
	video := videoLevels(lv)
	switch {
	case video && (s.Videos == "" || s.Models == ""):
		return harness.Usagef("--levels frame and order need --videos ROOT and --models DIR")
	case s.Videos != "" && !video && !s.ReferenceModel && !s.VerifyAnswers:
		return harness.Usagef("--videos is read only by the frame and order levels, --reference-model and --verify-answers; add them to --levels")
	case s.ReferenceModel && (s.Videos == "" || s.Models == "" || s.Reference != ""):
		return harness.Usagef("--reference-model needs --videos ROOT and --models DIR (with a vlm_reader role), and replaces --reference")
	case s.VerifyAnswers && (s.Videos == "" || s.Models == ""):
		return harness.Usagef("--verify-answers needs --videos ROOT and --models DIR (with a vlm_reader role)")
	}
	switch s.FramePath {
	case "", "host":
	case "device":
		if s.Videos == "" || s.Models == "" {
			return harness.Usagef("--frame-path device needs --videos ROOT and --models DIR: it feeds the image tower's frames")
		}
	default:
		return harness.Usagef("--frame-path %q: want host or device", s.FramePath)
	}
	switch s.FrameResize {
	case "", FrameResizeProcessor, FrameResizeFFmpeg:
	default:
		return harness.Usagef("--frame-resize %q: want %s or %s", s.FrameResize, FrameResizeProcessor, FrameResizeFFmpeg)
	}
	switch {
	case s.VideoTimeout < 0:
		return harness.Usagef("--video-timeout must be 0 or more")
	case s.Limit < 0:
		return harness.Usagef("--limit must be 0 or more")
	case !(s.MaxServerFailures >= 0 && s.MaxServerFailures <= 1):
		return harness.Usagef("--max-server-failures %g: want a share from 0 to 1", s.MaxServerFailures)
	case s.IndexBase != nil && *s.IndexBase != 0 && *s.IndexBase != 1:
		return harness.Usagef("--index-base %d: want 0 or 1", *s.IndexBase)
	case s.OffloadMinWork < 1:
		return harness.Usagef("--offload-min-work %d: want 1 or more multiply-adds", s.OffloadMinWork)
	}
	seen := map[string]bool{}
	for _, p := range s.Predictions {
		if p.Name == "" || p.Path == "" {
			return harness.Usagef("--predictions %q=%q: want NAME=FILE", p.Name, p.Path)
		}
		if seen[p.Name] {
			return harness.Usagef("--predictions: model name %q given twice", p.Name)
		}
		seen[p.Name] = true
	}
	if s.Shard != nil {
		if err := s.Shard.check(); err != nil {
			return harness.Usagef("--shard: %v", err)
		}
	}
	if _, err := s.precision(); err != nil {
		return err
	}
	if s.DeviceMemory != 0 && s.Models == "" {
		return harness.Usagef("--device-memory needs --models: without models the audit runs no neural network")
	}
	return nil
}

// precision is Precision as the searches' kernels take it ("" is fp32).
func (s *Spec) precision() (cuda.Precision, error) {
	if s.Precision == "" {
		return cuda.FP32, nil
	}
	p, err := cuda.ParsePrecision(s.Precision)
	if err != nil {
		return cuda.FP32, harness.Usagef("--precision %s: want fp32, tf32 or bf16", s.Precision)
	}
	return p, nil
}

// ShardSpec is what a shard stores of s for merge: the fields that decide
// the audit's outputs, with every path made absolute (merge may run in
// another directory), and those of one process left out (the run
// directory, workers, devices, precision, offload cut, memory budget,
// progress, the share of server failures allowed, the shard itself), which
// change no output. Two shards are of
// the same audit when their ShardSpecs are equal.
func (s Spec) ShardSpec() (Spec, error) {
	out := s
	out.Out, out.Workers, out.Device, out.Precision, out.OffloadMinWork, out.DeviceMemory = "", 0, gpu.Spec{}, "", 0, 0
	out.LogFormat, out.Quiet, out.Shard, out.Merge, out.MaxServerFailures = "", false, nil, nil, 0
	var err error
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		a, e := filepath.Abs(p)
		if e != nil && err == nil {
			err = fmt.Errorf("--shard: absolute path of %s: %w", p, e)
		}
		return a
	}
	out.Items = make([]string, len(s.Items))
	for k, p := range s.Items {
		out.Items[k] = abs(p)
	}
	if len(s.Items) == 0 {
		out.Items = nil
	}
	out.Predictions = make([]ModelFile, len(s.Predictions))
	for k, p := range s.Predictions {
		out.Predictions[k] = ModelFile{Name: p.Name, Path: abs(p.Path)}
	}
	if len(s.Predictions) == 0 {
		out.Predictions = nil
	}
	out.Videos, out.Models, out.Reference = abs(s.Videos), abs(s.Models), abs(s.Reference)
	return out, err
}
