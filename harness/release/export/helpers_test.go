package export

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
)

func ptr(f float64) *float64 { return &f }

// testRelease is a small release in the shape Compose gives: benchmark the
// release name, ids "<source>/<id>", meta saying where each item came from.
// Its texts hold what the writers must escape: quotes of both kinds, a
// backslash, a tab, a newline, non-ASCII letters.
func testRelease(t *testing.T) *release.Release {
	t.Helper()
	name := "vidscreen-0123456789abcdef"
	meta := func(src, id string, order []int) json.RawMessage {
		b, err := json.Marshal(map[string]any{"source": src, "source_id": id, "option_order": order})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	items := []*harness.Item{
		{ID: "nextqa/val/4010069381_3", Benchmark: name, Video: "4010069381", VideoPath: "nextqa/4010069381.mp4",
			Question: "why did the boy pick up the ball?", Options: []string{"to throw it", "it's his", "to \"hide\" it", "to eat"},
			Answer: 1, Task: "CW", Group: "reasoning", Duration: ptr(31.5), Meta: meta("nextqa", "val/4010069381_3", []int{2, 0, 1, 3})},
		{ID: "star/Interaction_T1_13", Benchmark: name, Video: "6H78U", Question: "Which object was tidied up by the person?",
			Options: []string{"The closet/cabinet.", "The blanket.", "The clothes.", "The table."}, Answer: 2, Task: "Interaction",
			Group: "temporal", Duration: ptr(40), Start: ptr(11.1), End: ptr(19.6), Meta: meta("star", "Interaction_T1_13", []int{0, 1, 2, 3})},
		{ID: "mvbench/action_count_7", Benchmark: name, Video: "clevrer/video_10001.mp4", Question: "How many times\tdoes it\nbounce? (back\\slash)",
			Options: []string{"3", "2", "5"}, Answer: 0, Task: "action_count", Group: "perception"},
		{ID: "videomme/601-2", Benchmark: name, Video: "fFjv93ACGo8", Question: "Où est la caméra ?",
			Options: []string{"à gauche", "à droite", "au centre", "en haut"}, Answer: 3, Task: "Spatial Perception",
			Group: "perception", Duration: ptr(1203)},
		{ID: "egoschema/0074f737", Benchmark: name, Video: "0074f737-11cb-497d-8d07-77c3a8127391", Question: "What is C doing?",
			Options: []string{"cooking", "cleaning", "reading", "painting", "sewing"}, Answer: 4, Task: "", Group: ""},
	}
	return &release.Release{Name: name, Lockfile: &release.Lockfile{Release: name, Seed: 7}, Items: items}
}

// python returns the path of python3, or skips the test.
func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	return p
}
