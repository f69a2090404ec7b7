package selection

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestInputsFromRun: select takes the item files and video root that
// run.json records only when a flag it was not given is needed, checks the
// item files by SHA-256 against config.json, and refuses naming the file.
func TestInputsFromRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := filepath.Join(dir, "items.jsonl")
	body := []byte(`{"id":"a"}` + "\n")
	if err := os.WriteFile(items, body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	videos := filepath.Join(dir, "videos")
	if err := os.Mkdir(videos, 0o755); err != nil {
		t.Fatal(err)
	}
	withRunJSON := func(in *run.Inputs) string {
		r := t.TempDir()
		if in != nil {
			b, err := json.Marshal(map[string]any{"vidscreen": "x", "inputs": in})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(r, rundir.RunJSON), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	cfg := rundir.Config{Items: []rundir.Input{{Name: "items.jsonl", SHA256: hex.EncodeToString(sum[:])}}, VideoRoot: videos, Videos: &rundir.VideoConfig{}}
	other := rundir.Config{Items: []rundir.Input{{Name: "items.jsonl", SHA256: strings.Repeat("0", 64)}}}
	good := &run.Inputs{Items: []string{items}, Videos: videos}
	tests := []struct {
		name                string
		spec                Spec
		in                  *run.Inputs
		cfg                 rundir.Config
		wantItems           []string
		wantVideos, wantErr string
		wantStderr, notSaid string
	}{
		{"nothing needed: nothing taken", Spec{}, good, cfg, nil, "", "", "", "from the run"},
		{"an export takes the items", Spec{ExportLMMSEval: "lm"}, good, cfg, []string{items}, "", "", "--items from the run: " + items, "--videos"},
		{"--items given: kept", Spec{ExportLMMSEval: "lm", Items: []string{"mine.jsonl"}}, good, cfg, []string{"mine.jsonl"}, "", "", "", "from the run"},
		{"--videos given takes the items", Spec{Videos: "v"}, good, cfg, []string{items}, "v", "", "--items from the run", "--videos from"},
		{"--models takes the root and the items", Spec{Models: "m"}, good, cfg, []string{items}, videos, "", "--videos from the run: " + videos, ""},
		{"--carry-readers: the items for the export, no root", Spec{Models: "m", CarryReaders: true, ExportLMMSEval: "lm"}, good, cfg, []string{items}, "", "", "--items from the run: " + items, "--videos from"},
		{"--models on a run without video levels takes nothing", Spec{Models: "m"}, good, rundir.Config{Items: cfg.Items}, nil, "", "", "", "from the run"},
		{"a changed item file is refused", Spec{ExportVLMEvalKit: "x.tsv"}, good, other, nil, "", items + " (run.json inputs.items) has changed since the audit", "", ""},
		{"a missing item file is refused", Spec{ExportVLMEvalKit: "x.tsv"}, &run.Inputs{Items: []string{filepath.Join(dir, "gone.jsonl")}}, cfg, nil, "", "gone.jsonl (run.json inputs.items) cannot be read here", "", ""},
		{"no run.json is refused, naming the item files", Spec{ExportVLMEvalKit: "x.tsv"}, nil, cfg, nil, "", "records no item file paths (an older vidscreen, or items from a pipe): pass --items FILE, the audit's item files (the run read items.jsonl)", "", ""},
		{"a video root gone asks for --videos", Spec{Models: "m"}, &run.Inputs{Items: []string{items}, Videos: filepath.Join(dir, "gone")}, cfg, nil, "", "is not a directory here: pass --videos ROOT", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := tc.spec
			spec.Run = withRunJSON(tc.in)
			var stderr bytes.Buffer
			err := inputsFromRun(&spec, tc.cfg, run.Env{Stderr: &stderr})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(spec.Items, tc.wantItems) || spec.Videos != tc.wantVideos {
				t.Errorf("items %v, videos %q; want %v, %q", spec.Items, spec.Videos, tc.wantItems, tc.wantVideos)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) || (tc.notSaid != "" && strings.Contains(stderr.String(), tc.notSaid)) {
				t.Errorf("stderr %q: want %q, not %q", stderr.String(), tc.wantStderr, tc.notSaid)
			}
		})
	}
}
