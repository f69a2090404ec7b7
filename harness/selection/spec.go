package selection

import (
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// A Spec is everything vidscreen select is asked, as plain data: each field
// is one flag (named in its comment), or the run directory argument, and a
// Spec encodes to and from JSON. A command builds one from its flags; a Go
// program builds one in code, from DefaultSpec. Select runs it.
//
// The fields that only one mode reads (the composition's caps and event
// type, --hardest's group) are pointers: nil is the flag left out, which
// takes its default; a value is the flag given, which Validate refuses when
// the mode would not read it, since the user would believe it shaped the
// release.
type Spec struct {
	// Run is the finished audit's run directory (the RUN argument).
	Run string `json:"run"`
	// Out is where the release is written (--out).
	Out string `json:"out"`
	// Screen is the screen's directory (--screen; "" RUN/screen, or the run
	// screened with vidscreen screen's defaults when that holds none).
	Screen string `json:"screen,omitempty"`
	// Items are the audit's item files (--items), which give the release
	// each item's video_path, start, end and meta. Left empty, Select takes
	// the paths the run recorded in run.json where the exports or a video
	// root need them, each checked by SHA-256 against config.json.
	Items []string `json:"items,omitempty"`
	// Videos is the audit's video root (--videos): videos are identified by
	// content, and with Models the model readers re-run. Left empty with
	// Models on a run with video levels, Select takes the run's root.
	Videos string `json:"videos,omitempty"`
	// Models is the audit's models folder (--models).
	Models string `json:"models,omitempty"`
	// CarryReaders keeps the audit's model readers' verdicts (--carry-readers):
	// with Models on a run with video levels, Select then takes no video root
	// from the run, so full-video-reader and captions-reader are not re-run
	// on the released order (hours at pool size); Models still embeds.
	CarryReaders bool `json:"carry_readers,omitempty"`
	// Device is where the models and searches run (--device; the zero value
	// is the CPU). It encodes as the flag's text ("cuda:0").
	Device gpu.Spec `json:"device"`
	// Precision is the GPU's tile precision for the searches (--precision:
	// fp32, tf32 or bf16; "" fp32, which defers to $VIDSCREEN_CUDA_PRECISION).
	Precision string `json:"precision,omitempty"`
	// OffloadMinWork is the smallest search sent to a GPU
	// (--offload-min-work).
	OffloadMinWork int64 `json:"offload_min_work"`

	// Budget composes a release of Budget items (--budget).
	Budget int `json:"budget,omitempty"`
	// Hardest takes the Hardest hardest items per Per group instead
	// (--hardest); with neither, the release is in --hardest's mode.
	Hardest int `json:"hardest,omitempty"`
	// Per is what Hardest takes items of (--per: group, task or benchmark;
	// nil group).
	Per *string `json:"per,omitempty"`
	// Sources are the benchmarks the release may draw from (--sources;
	// none all).
	Sources []string `json:"sources,omitempty"`
	// Durations are the duration groups it may draw from (--durations;
	// none all).
	Durations []string `json:"durations,omitempty"`
	// Events is the event type the composition rotates over (--events:
	// task or group; nil task).
	Events *string `json:"events,omitempty"`
	// AdmitSuspects lets the items the run's answer verification flags
	// answer_suspect into the release (--admit-suspects); by default they
	// stay out, as the authors' compose_verify drops them.
	AdmitSuspects bool `json:"admit_suspects,omitempty"`

	// CapVideo, CapScene and CapTemplate are the composition's initial caps
	// of items per video, visual scene and question template (--cap-video,
	// --cap-scene, --cap-template; nil 1, 1 and 5).
	CapVideo    *int `json:"cap_video,omitempty"`
	CapScene    *int `json:"cap_scene,omitempty"`
	CapTemplate *int `json:"cap_template,omitempty"`
	// CapSource is the initial cap per source as a share of the budget
	// (--cap-source; nil 0.05).
	CapSource *float64 `json:"cap_source,omitempty"`
	// CapSceneMax bounds how far a duration group's relaxation raises its
	// scene cap, and CapVideoScarce is the items one video may give in a
	// scarce cell (Video-Index pool/select.py's j_max and k_scarce; no flag
	// yet; nil 4 and 3).
	CapSceneMax    *int `json:"cap_scene_max,omitempty"`
	CapVideoScarce *int `json:"cap_video_scarce,omitempty"`
	// SceneThreshold is the mean-frame cosine at or above which two videos
	// of the shortest duration group are one visual scene; the other groups
	// take the threshold of the same false-match rate (release.Scenes;
	// --scene-threshold; nil release.DefaultSceneThreshold).
	SceneThreshold *float64 `json:"scene_threshold,omitempty"`

	// Rounds bounds the red team's rounds of drop and refill (--rounds; 0
	// attacks once and drops nothing).
	Rounds int `json:"rounds"`
	// Seed seeds the selection's orders, the red team's and the option
	// shuffle (--seed).
	Seed uint64 `json:"seed"`
	// Workers is the red-team attackers run at once (--workers; 0
	// GOMAXPROCS); the release does not depend on it.
	Workers int `json:"workers,omitempty"`

	// ExportLMMSEval also writes the release as an lmms-eval task
	// directory (--export-lmms-eval).
	ExportLMMSEval string `json:"export_lmms_eval,omitempty"`
	// ExportVLMEvalKit also writes it as a VLMEvalKit video MCQ table, a
	// .tsv file (--export-vlmevalkit).
	ExportVLMEvalKit string `json:"export_vlmevalkit,omitempty"`
}

// The defaults of the flags whose field is a pointer (nil takes them).
const (
	DefaultCapVideo    = 1
	DefaultCapScene    = 1
	DefaultCapTemplate = 5
	DefaultCapSource   = 0.05
	// DefaultCapSceneMax and DefaultCapVideoScarce are the authors' j_max
	// and k_scarce.
	DefaultCapSceneMax    = 4
	DefaultCapVideoScarce = 3
)

// DefaultSpec is the Spec of vidscreen select with no flags: the defaults
// every flag shows in its help. Run, Out and Budget or Hardest are for the
// caller to set.
func DefaultSpec() Spec {
	return Spec{
		Precision:      cuda.FP32.String(),
		OffloadMinWork: kernels.DefaultMinWork,
		Rounds:         3,
		Seed:           1,
	}
}

// hardestMode reports whether s takes the hardest items per group rather
// than composing under caps (--hardest, or no --budget).
func (s *Spec) hardestMode() bool { return s.Hardest > 0 || s.Budget == 0 }

// sceneThreshold is SceneThreshold or its default.
func (s *Spec) sceneThreshold() float64 {
	if s.SceneThreshold != nil {
		return *s.SceneThreshold
	}
	return release.DefaultSceneThreshold
}

// Validate says what in s cannot run, naming the flag; it reads no file.
func (s *Spec) Validate() error {
	switch {
	case s.Run == "":
		return harness.Usagef("name one run directory: vidscreen select RUN --out DIR --budget N")
	case s.Out == "":
		return harness.Usagef("--out DIR is required")
	case s.ExportVLMEvalKit != "" && !strings.EqualFold(filepath.Ext(s.ExportVLMEvalKit), ".tsv"):
		return harness.Usagef("--export-vlmevalkit %s: want a .tsv file (VLMEvalKit reads its tables by their suffix)", s.ExportVLMEvalKit)
	case s.Rounds < 0:
		return harness.Usagef("--rounds %d: want 0 or more", s.Rounds)
	case s.CarryReaders && s.Videos != "":
		return harness.Usagef("--carry-readers with --videos: --videos re-runs the model readers; give one or the other")
	}
	if t := s.sceneThreshold(); !(t > -1 && t <= 1) {
		return harness.Usagef("--scene-threshold %v: want a cosine in (-1, 1]", t)
	}
	for _, c := range []struct {
		name string
		v    *int
	}{{"cap-scene-max", s.CapSceneMax}, {"cap-video-scarce", s.CapVideoScarce}} {
		if c.v != nil && *c.v < 1 {
			return harness.Usagef("--%s %d: want 1 or more", c.name, *c.v)
		}
	}
	if err := s.checkUnread(); err != nil {
		return err
	}
	if err := s.query().Check(); err != nil {
		return &harness.UsageError{Msg: err.Error()}
	}
	if s.Precision != "" {
		if _, err := cuda.ParsePrecision(s.Precision); err != nil {
			return harness.Usagef("--precision %s: want fp32, tf32 or bf16", s.Precision)
		}
	}
	if err := place.CheckMinWork(s.OffloadMinWork); err != nil {
		return &harness.UsageError{Msg: err.Error()}
	}
	return nil
}

// checkUnread refuses a flag that the chosen mode does not read: the user
// would believe it shaped the release. The flags are named in the order
// of their names, as flag.FlagSet.Visit gave them when the command read
// them itself.
func (s *Spec) checkUnread() error {
	var unread []string
	if s.hardestMode() {
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"cap-scene", s.CapScene != nil}, {"cap-scene-max", s.CapSceneMax != nil}, {"cap-source", s.CapSource != nil}, {"cap-template", s.CapTemplate != nil},
			{"cap-video", s.CapVideo != nil}, {"cap-video-scarce", s.CapVideoScarce != nil}, {"events", s.Events != nil}, {"scene-threshold", s.SceneThreshold != nil},
		} {
			if f.set {
				unread = append(unread, "--"+f.name)
			}
		}
	} else if s.Per != nil {
		unread = append(unread, "--per")
	}
	if len(unread) == 0 {
		return nil
	}
	mode := "--budget composes under caps"
	if s.hardestMode() {
		mode = "--hardest takes K per group, one item per video, without the composition's caps"
	}
	return harness.Usagef("%s: %s, so it would not read %s", strings.Join(unread, ", "), mode, strings.Join(unread, ", "))
}

// query is the release query s asks for.
func (s *Spec) query() release.Query {
	if s.hardestMode() {
		return release.Query{Hardest: s.Hardest, Per: orDefault(s.Per, release.PerGroup), Budget: s.Budget,
			Sources: s.Sources, Durations: s.Durations, AdmitSuspects: s.AdmitSuspects}
	}
	return release.Query{Budget: s.Budget, Sources: s.Sources, Durations: s.Durations, Events: orDefault(s.Events, release.EventsTask), AdmitSuspects: s.AdmitSuspects,
		Caps: &release.Caps{PerVideo: orDefault(s.CapVideo, DefaultCapVideo), PerScene: orDefault(s.CapScene, DefaultCapScene),
			PerTemplate: orDefault(s.CapTemplate, DefaultCapTemplate), SourceShare: orDefault(s.CapSource, DefaultCapSource),
			SceneMax: orDefault(s.CapSceneMax, DefaultCapSceneMax), VideoScarce: orDefault(s.CapVideoScarce, DefaultCapVideoScarce)}}
}

func orDefault[T any](p *T, def T) T {
	if p != nil {
		return *p
	}
	return def
}
