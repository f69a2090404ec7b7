// Package transcribe runs a models directory's asr role on audio and video
// files, one transcript per file, as `vidscreen models transcribe` prints
// them: the audit's own path (decode.DecodeAudio's first audio track at 16
// kHz mono, then models.Transcriber), so that a user can compare what the
// audit hears with their own reference (transformers' or
// transformers.js's Whisper pipeline on the same export).
package transcribe

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
)

// A Result is one file's transcript.
type Result struct {
	// File is the path as given.
	File string `json:"file"`
	// Text is the transcript, special tokens left out.
	Text string `json:"text"`
	// IDs are the generated token ids of each 30 s window, the end token
	// included when reached (the prompt left out); empty without audio.
	IDs [][]int `json:"ids"`
	// Language is the language the prompt carried, detected or given.
	Language string `json:"language,omitempty"`
	// NoAudio is true for a file without an audio stream, which is not
	// transcribed (the audit abstains on such a video).
	NoAudio bool `json:"no_audio,omitempty"`
}

// Options say how to open the asr role.
type Options struct {
	// Runtime places the sessions (device, threads, log).
	Runtime models.RuntimeOptions
	// Language, when set, replaces the manifest's language of the asr
	// role (a code of lang_to_id, "de" or "<|de|>").
	Language string
}

// Open opens the asr role of the models directory dir on ONNX Runtime. A
// served asr entry is refused: the command reports the export's own tokens,
// which a server does not return.
func Open(dir string, o Options) (*models.Transcriber, error) {
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	spec, ok := m.Roles[models.RoleASR]
	if !ok {
		return nil, fmt.Errorf("%s: models.json has no asr role", dir)
	}
	if spec.Served() {
		return nil, fmt.Errorf("%s: the asr role is served by %s; transcribe runs an ONNX export (an entry with dir)", dir, spec.ServerSettings().URL)
	}
	if o.Language != "" {
		spec.Language = o.Language
		m.Roles[models.RoleASR] = spec
	}
	rt, err := models.NewRuntime(o.Runtime)
	if err != nil {
		return nil, err
	}
	return rt.OpenTranscriber(m, rt.Devices()[0])
}

// Files transcribes each file in order with t and hands each result to
// emit as soon as it is made; an error decoding or transcribing a file
// stops there, naming it.
func Files(ctx context.Context, t *models.Transcriber, files []string, emit func(Result) error) error {
	for _, f := range files {
		r, err := File(ctx, t, f)
		if err != nil {
			return err
		}
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// File transcribes the first audio track of path.
func File(ctx context.Context, t *models.Transcriber, path string) (Result, error) {
	r := Result{File: path, IDs: [][]int{}}
	a, err := decode.DecodeAudio(ctx, path)
	if err != nil {
		return r, err
	}
	if a.NoStream {
		r.NoAudio = true
		return r, nil
	}
	tr, err := t.Transcribe(ctx, a.Samples)
	if err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	r.Text, r.IDs, r.Language = tr.Text, tr.IDs, tr.Language
	return r, nil
}
