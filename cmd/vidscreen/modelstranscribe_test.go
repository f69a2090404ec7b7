package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/world"
	"github.com/vidscreen/vidscreen/models/transcribe"
)

// TestModelsTranscribe renders a small world and transcribes its videos
// with the world's asr model (onnxbuild.ToneASR) through `models
// transcribe`: each audio-family video's line has the two colours its
// items say the soundtrack names first and last, in that order, and ids
// ending with the end token; a video without sound says no_audio.
func TestModelsTranscribe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := world.Generate(context.Background(), dir, world.Options{Seed: 5, Videos: 9, MinDuration: 3, MaxDuration: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{} // video: first and last colour
	silent := ""
	for _, it := range w.Items {
		p := want[it.Video]
		switch {
		case strings.Contains(it.Question, "soundtrack name first"):
			p[0] = it.Options[it.Answer]
		case strings.Contains(it.Question, "soundtrack name last"):
			p[1] = it.Options[it.Answer]
		default:
			if it.Group != "audio" {
				silent = it.Video
			}
			continue
		}
		want[it.Video] = p
	}
	if len(want) == 0 || silent == "" {
		t.Fatalf("the world has %d audio videos and silent video %q", len(want), silent)
	}
	video := func(id string) string { return filepath.Join(dir, world.VideosDir, id+".mp4") }
	args := []string{"transcribe", filepath.Join(dir, world.ModelsDir)}
	for id := range want {
		args = append(args, video(id))
	}
	args = append(args, video(silent))
	code, out, errOut := runModels("", args...)
	if code != 0 {
		t.Fatalf("models transcribe: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(args)-2 {
		t.Fatalf("%d lines for %d files:\n%s", len(lines), len(args)-2, out)
	}
	for i, line := range lines {
		var r transcribe.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		if r.File != args[i+2] {
			t.Errorf("line %d is %s, want %s", i+1, r.File, args[i+2])
		}
		if r.File == video(silent) {
			if !r.NoAudio || r.Text != "" || !strings.Contains(line, `"ids":[]`) {
				t.Errorf("the silent video: %s", line)
			}
			continue
		}
		id := strings.TrimSuffix(filepath.Base(r.File), ".mp4")
		if p := want[id]; r.Text != p[0]+" "+p[1] || len(r.IDs) != 1 || len(r.IDs[0]) != 3 {
			t.Errorf("%s: %s; want the text %q and three ids (two words and the end)", id, line, p[0]+" "+p[1])
		}
	}
	if code, _, errOut := runModels("", "transcribe", filepath.Join(dir, world.ModelsDir)); code != 2 || !strings.Contains(errOut, "one audio or video file") {
		t.Errorf("no file: exit %d: %s", code, errOut)
	}
}
