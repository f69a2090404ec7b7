package vidomni

import (
	"context"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// CaptionOptions is everything "vidscreen vidomni caption" is asked, as
// plain data: each field is one flag (named in its comment) or, for Files,
// the command's arguments. DefaultCaptionOptions holds the flags'
// defaults.
type CaptionOptions struct {
	// Files are the videos to caption, relative paths under Videos.
	Files []string `json:"files"`
	// Out is the captions JSONL written (--out).
	Out string `json:"out"`
	// Source is the caption source's name in the output (--source; "":
	// captioner, or the served model's name).
	Source string `json:"source,omitempty"`
	// FrameOptions.Models captions with the captioner role, ServerOptions
	// with the model behind a server: one of them.
	FrameOptions
	ServerOptions
}

// DefaultCaptionOptions are the flags' defaults: 8 frames decoded at
// DefaultSize on the CPU.
func DefaultCaptionOptions() CaptionOptions {
	return CaptionOptions{FrameOptions: DefaultFrameOptions()}
}

// CaptionResult is what Caption wrote, for the caller to report.
type CaptionResult struct {
	// Source is the caption source the lines carry.
	Source string
	// Captions are the captions written, one per video decoded.
	Captions []DenseCaption
	// Empty counts the blank captions among them: a captioner whose ids
	// its tokenizer does not know writes "" without an error, and blank
	// captions handed on would be labelled as if the model had nothing to
	// say.
	Empty int
	// Failed are the videos that could not be decoded (also handed to
	// Env.Skipped).
	Failed []FailedVideo
}

// Caption writes a dense caption of each video of opt.Files and one JSON
// line per video to opt.Out, the sentences as Split cuts them, ready to be
// labelled or verified (Verify with Captions). With opt.Models the
// captioner role captions each sampled frame and the captions are joined
// (WriteCaptions); with opt.URL the model behind it gets the frames and
// one of the paper's instructions (CaptionChat).
//
// Options that ask for something impossible are an *harness.UsageError; a
// models folder that cannot be opened, or no video that decodes, is
// harness.ErrBadInput and writes nothing. ctx goes to the decoding, the
// model and the server; cancelling it ends Caption with its error.
func Caption(ctx context.Context, opt CaptionOptions, env Env) (*CaptionResult, error) {
	env = env.withDefaults()
	if len(opt.Files) == 0 {
		return nil, &harness.UsageError{Msg: "name at least one VIDEO"}
	}
	if opt.Out == "" {
		return nil, &harness.UsageError{Msg: "--out FILE is required"}
	}
	if (opt.URL == "") == (opt.Models == "") {
		return nil, &harness.UsageError{Msg: "give --models (the captioner role) or --server (a generating model), one of them"}
	}
	frames, err := opt.sampler(env, "")
	if err != nil {
		return nil, err
	}
	res := &CaptionResult{Source: opt.Source}
	if opt.URL != "" {
		c, err := opt.client()
		if err != nil {
			return nil, err
		}
		if res.Source == "" {
			res.Source = opt.Model
		}
		if res.Captions, res.Failed, err = CaptionChat(ctx, c, res.Source, frames, opt.Files, opt.Seed); err != nil {
			return nil, err
		}
	} else {
		m, rt, dev, err := opt.runtime(env)
		if err != nil {
			return nil, err
		}
		capt, err := rt.OpenCaptioner(m, dev)
		if err != nil {
			return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
		}
		defer capt.Close()
		if res.Source == "" {
			res.Source = string(models.RoleCaptioner)
		}
		if res.Captions, res.Failed, err = WriteCaptions(ctx, capt, res.Source, frames, opt.Files); err != nil {
			return nil, err
		}
	}
	env.skipped(res.Failed)
	if len(res.Captions) == 0 {
		return nil, fmt.Errorf("%w: no video could be decoded", harness.ErrBadInput)
	}
	if err := writeJSONL(opt.Out, res.Captions); err != nil {
		return nil, err
	}
	for _, c := range res.Captions {
		if strings.TrimSpace(c.Caption) == "" {
			res.Empty++
		}
	}
	return res, nil
}
