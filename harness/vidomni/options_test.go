package vidomni

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// Options that ask for something impossible are refused as an
// *harness.UsageError naming the flag, before a file is read or a model opened,
// so that a command maps them to its usage error.
func TestOptionsErrors(t *testing.T) {
	t.Parallel()
	verify := func(edit func(*VerifyOptions)) func() error {
		return func() error {
			opt := DefaultVerifyOptions()
			opt.Labels, opt.Out = "no_such_labels.jsonl", filepath.Join(t.TempDir(), "v.jsonl")
			edit(&opt)
			_, err := Verify(context.Background(), opt, Env{})
			return err
		}
	}
	caption := func(edit func(*CaptionOptions)) func() error {
		return func() error {
			opt := DefaultCaptionOptions()
			opt.Files, opt.Out, opt.Models = []string{"v.mp4"}, filepath.Join(t.TempDir(), "c.jsonl"), "models"
			edit(&opt)
			_, err := Caption(context.Background(), opt, Env{})
			return err
		}
	}
	score := func(edit func(*ScoreOptions)) func() error {
		return func() error {
			opt := DefaultScoreOptions()
			opt.Labels, opt.Verdicts, opt.Out = "testdata/labels.jsonl", []string{"testdata/verdicts.jsonl"}, t.TempDir()
			edit(&opt)
			_, err := ScoreFiles(opt)
			return err
		}
	}
	half := 0.5
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"verify without an input", verify(func(o *VerifyOptions) { o.Labels = "" }), "--out and one of --labels and --captions are required"},
		{"verify of captions with nothing to fit on", verify(func(o *VerifyOptions) { o.Labels, o.Captions = "", "c.jsonl" }), "--captions carry no labels to fit the threshold on: give --fit FILE or --threshold T"},
		{"verify by an unknown method", verify(func(o *VerifyOptions) { o.Method = "oracle" }), `--method "oracle": want similarity, vlm or server`},
		{"a threshold for the vlm", verify(func(o *VerifyOptions) { o.Method, o.Threshold = MethodVLM, &half }), "--fit, --threshold and --cache belong to --method similarity"},
		{"the server method without a server", verify(func(o *VerifyOptions) { o.Method = MethodServer }), "--server goes with --method server, and --method server needs --server"},
		{"an unknown policy", verify(func(o *VerifyOptions) { o.NoIncorrect = "half" }), `--no-incorrect "half": want zero, one or skip`},
		{"caption of no video", caption(func(o *CaptionOptions) { o.Files = nil }), "name at least one VIDEO"},
		{"caption by both a model and a server", caption(func(o *CaptionOptions) { o.URL = "http://127.0.0.1:1/v1" }), "give --models (the captioner role) or --server (a generating model), one of them"},
		{"caption of 0 frames", caption(func(o *CaptionOptions) { o.Frames = 0 }), "--frames 0: want 1 to 1024"},
		{"score without verdicts", score(func(o *ScoreOptions) { o.Verdicts = nil }), "--labels, --verdicts and --out are required"},
		{"a self pair without its source", score(func(o *ScoreOptions) { o.Self = []string{"m1"} }), `--self "m1": want VERIFIER=SOURCE`},
		{"an ensemble of one", score(func(o *ScoreOptions) { o.Ensembles = []string{"m1+"} }), `--ensemble "m1+": want A+B`},
	} {
		err := c.run()
		var oe *harness.UsageError
		if !errors.As(err, &oe) || oe.Msg != c.want {
			t.Errorf("%s: %v, want the options error %q", c.name, err, c.want)
		}
	}
}

// A file that cannot be read is bad input, and Verify still returns a
// result to report from.
func TestVerifyMissingLabelsIsBadInput(t *testing.T) {
	t.Parallel()
	opt := DefaultVerifyOptions()
	opt.Labels, opt.Out = filepath.Join(t.TempDir(), "none.jsonl"), filepath.Join(t.TempDir(), "v.jsonl")
	res, err := Verify(context.Background(), opt, Env{})
	if !errors.Is(err, harness.ErrBadInput) || res == nil {
		t.Fatalf("Verify of a missing labels file: %v, result %v; want bad input and a result", err, res)
	}
	if _, err := os.Stat(opt.Out); !os.IsNotExist(err) {
		t.Errorf("Verify wrote %s on bad input", opt.Out)
	}
}

// The options are plain data: they come back from JSON as they went in,
// the device as its flag's text.
func TestOptionsJSON(t *testing.T) {
	t.Parallel()
	v := DefaultVerifyOptions()
	th := 0.25
	v.Labels, v.Out, v.Threshold, v.Models, v.URL = "l.jsonl", "v.jsonl", &th, "models", "http://127.0.0.1:8000/v1"
	if err := v.Device.Set("cuda:1"); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back VerifyOptions
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Errorf("verify options through JSON %s:\n got %+v\nwant %+v", b, back, v)
	}
}
