package selection

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
)

func TestValidateNamesTheFlag(t *testing.T) {
	t.Parallel()
	two, half, cos := 2, 0.5, 0.8
	group := release.EventsGroup
	task := release.PerTask
	base := func(edit func(*Spec)) Spec {
		s := DefaultSpec()
		s.Run, s.Out, s.Budget = "run", "out", 10
		edit(&s)
		return s
	}
	cases := []struct {
		name string
		spec Spec
		want string // "" valid
	}{
		{"a budget with the defaults is valid", base(func(*Spec) {}), ""},
		{"a composition reads its caps and event type", base(func(s *Spec) {
			s.CapVideo, s.CapSource, s.Events, s.SceneThreshold = &two, &half, &group, &cos
		}), ""},
		{"hardest with its group is valid", base(func(s *Spec) { s.Budget, s.Hardest, s.Per = 0, 3, &task }), ""},
		{"no run directory is refused", base(func(s *Spec) { s.Run = "" }), "name one run directory"},
		{"no output directory is refused", base(func(s *Spec) { s.Out = "" }), "--out DIR is required"},
		{"a VLMEvalKit table not named .tsv is refused", base(func(s *Spec) { s.ExportVLMEvalKit = "x.csv" }), "--export-vlmevalkit x.csv: want a .tsv file"},
		{"an export without --items is valid: select takes them from the run", base(func(s *Spec) { s.ExportLMMSEval = "lm" }), ""},
		{"negative rounds are refused", base(func(s *Spec) { s.Rounds = -1 }), "--rounds -1: want 0 or more"},
		{"--carry-readers with --videos is refused", base(func(s *Spec) { s.CarryReaders, s.Videos = true, "v" }), "--carry-readers with --videos"},
		{"a scene threshold above 1 is refused", base(func(s *Spec) { f := 1.5; s.SceneThreshold = &f }), "--scene-threshold 1.5: want a cosine in (-1, 1]"},
		{"hardest refuses the caps it would not read, in name order", base(func(s *Spec) {
			s.Budget, s.Hardest, s.CapVideo, s.Events = 0, 3, &two, &group
		}), "--cap-video, --events: --hardest takes K per group"},
		{"hardest refuses a cap given at its default value", base(func(s *Spec) {
			one := 1
			s.Budget, s.Hardest, s.CapScene = 0, 3, &one
		}), "--cap-scene: --hardest"},
		{"a scene cap bound under one is refused", base(func(s *Spec) { zero := 0; s.CapSceneMax = &zero }), "--cap-scene-max 0: want 1 or more"},
		{"hardest refuses the scarce cells' video cap", base(func(s *Spec) {
			s.Budget, s.Hardest, s.CapVideoScarce = 0, 3, &two
		}), "--cap-video-scarce: --hardest"},
		{"a composition refuses --per", base(func(s *Spec) { s.Per = &task }), "--per: --budget composes under caps, so it would not read --per"},
		{"budget and hardest exclude each other", base(func(s *Spec) { s.Hardest = 2 }), "exclude each other"},
		{"a bad precision is refused", base(func(s *Spec) { s.Precision = "fp8" }), "--precision fp8"},
		{"an offload cut under one is refused", base(func(s *Spec) { s.OffloadMinWork = 0 }), "--offload-min-work 0"},
	}
	for _, c := range cases {
		err := c.spec.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var se *harness.UsageError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, c.want) {
			t.Errorf("%s: got %v, want a *harness.UsageError with %q", c.name, err, c.want)
		}
	}
}

// A Spec is plain data: it survives JSON, a flag left out (nil) included.
func TestSpecRoundTripsThroughJSON(t *testing.T) {
	t.Parallel()
	two, cos := 2, 0.85
	s := DefaultSpec()
	s.Run, s.Out, s.Budget, s.Sources, s.CapTemplate, s.SceneThreshold = "run", "out", 20, []string{"STAR"}, &two, &cos
	if err := s.Device.Set("cuda:1"); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, back) {
		t.Errorf("%s read back as %+v, want %+v", b, back, s)
	}
	if back.CapVideo != nil || back.Device.String() != (gpu.Spec{CUDA: true, Indices: []int{1}}).String() {
		t.Errorf("read back %+v", back)
	}
}
