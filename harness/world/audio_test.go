package world

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
)

// TestAudioFamilyIsHeardOnlyInItsSoundtrack renders a world and checks the
// audio family end to end, through AAC, FFmpeg's resampler, the log-mel
// features and the world's asr model (onnxbuild.ToneASR) in ONNX Runtime:
// each audio video's transcript is its planned words, so every audio item's
// gold colour is heard; no other video has an audio stream; and no frame
// of an audio video shows a colour its items offer.
func TestAudioFamilyIsHeardOnlyInItsSoundtrack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	w, err := Generate(ctx, dir, Options{Seed: 3, Videos: 18, MinDuration: 3, MaxDuration: 8})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	man, err := models.LoadManifest(filepath.Join(dir, ModelsDir))
	if err != nil {
		t.Fatal(err)
	}
	asr, err := rt.OpenTranscriber(man, rt.Devices()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer asr.Close()
	heard := map[string]string{}
	audioVids := 0
	for _, v := range w.videos {
		a, err := decode.DecodeAudio(ctx, filepath.Join(dir, VideosDir, v.id+".mp4"))
		if err != nil {
			t.Fatal(err)
		}
		if !v.family.audio {
			if !a.NoStream {
				t.Errorf("%s (%s) has an audio stream", v.id, v.family.Name)
			}
			continue
		}
		audioVids++
		if a.NoStream {
			t.Fatalf("%s: the audio family's video has no audio stream", v.id)
		}
		tr, err := asr.Transcribe(ctx, a.Samples)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(v.scene.Tones, " "); tr.Text != want {
			t.Errorf("%s: heard %q, want %q", v.id, tr.Text, want)
		}
		heard[v.id] = tr.Text
		for _, o := range v.scene.Objects {
			for _, tone := range v.scene.Tones {
				if o.Colour.String() == tone {
					t.Errorf("%s: a %s object shows the colour its soundtrack names", v.id, tone)
				}
			}
		}
		for _, s := range v.scene.Backgrounds {
			if slices.Contains(v.scene.Tones, s.Colour.String()) {
				t.Errorf("%s: the background shows the colour its soundtrack names", v.id)
			}
		}
	}
	if audioVids != audioVideos(w.Options) {
		t.Fatalf("%d audio videos, want %d", audioVids, audioVideos(w.Options))
	}
	n := 0
	for _, it := range w.Items {
		if it.Group != "audio" {
			continue
		}
		n++
		words := strings.Fields(heard[it.Video])
		if !slices.Contains(words, it.Options[it.Answer]) {
			t.Errorf("%s: gold %q not in the transcript %q", it.ID, it.Options[it.Answer], heard[it.Video])
		}
		hits := 0
		for _, o := range it.Options {
			if slices.Contains(words, o) {
				hits++
			}
		}
		if hits != 1 {
			t.Errorf("%s: %d options heard in %q, want only the gold", it.ID, hits, heard[it.Video])
		}
	}
	if n != 2*audioVids {
		t.Errorf("%d audio items, want two per video", n)
	}
}
