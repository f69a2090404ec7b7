package vidomni

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/served"
)

// The verification methods of VerifyOptions.Method.
const (
	// MethodSimilarity flags the sentences whose best frame's cosine under
	// the image_text role is below a threshold: no VLM needed.
	MethodSimilarity = "similarity"
	// MethodVLM asks the vlm_reader role each sentence's label as a
	// letter (its ONNX model, or the server models.json names for it).
	MethodVLM = "vlm"
	// MethodServer has a generating model behind a local server write the
	// paper's reply for each pair.
	MethodServer = "server"
)

// VerifyOptions is everything "vidscreen vidomni verify" is asked, as plain
// data: each field is one flag (named in its comment), and the options
// encode to and from JSON. DefaultVerifyOptions holds the flags' defaults.
type VerifyOptions struct {
	// Labels is the labelled pairs to verify (--labels), or Captions the
	// unlabelled pairs "vidomni caption" wrote (--captions): one of them.
	Labels   string `json:"labels,omitempty"`
	Captions string `json:"captions,omitempty"`
	// Out is the verdicts JSONL written (--out).
	Out string `json:"out"`
	// Method is MethodSimilarity, MethodVLM or MethodServer (--method).
	Method string `json:"method"`
	// Verifier is the verifier's name in the verdicts (--verifier; "":
	// image_text-similarity, vlm_reader or the served model's name).
	Verifier string `json:"verifier,omitempty"`
	// Fit is the labelled pairs the similarity threshold is fitted on
	// (--fit; "": the Labels pairs themselves, which is optimistic).
	Fit string `json:"fit,omitempty"`
	// Threshold fixes the similarity threshold instead of fitting one
	// (--threshold); nil fits.
	Threshold *float64 `json:"threshold,omitempty"`
	// NoIncorrect scores the pairs without an Incorrect sentence when
	// fitting (--no-incorrect: NoIncorrectZero, One or Skip, as Score).
	NoIncorrect string `json:"no_incorrect"`
	// Cache keeps the similarity method's frame embeddings in this
	// directory between runs (--cache; "" none).
	Cache string `json:"cache,omitempty"`
	FrameOptions
	ServerOptions
}

// DefaultVerifyOptions are the flags' defaults: similarity, fitted on the
// pairs verified, 8 frames decoded at DefaultSize on the CPU.
func DefaultVerifyOptions() VerifyOptions {
	return VerifyOptions{Method: MethodSimilarity, NoIncorrect: NoIncorrectZero, FrameOptions: DefaultFrameOptions()}
}

// VerifyResult is what Verify did, for the caller to report. The fields of
// a method stay nil under the others.
type VerifyResult struct {
	// Verifier is the name the verdicts carry.
	Verifier string
	// Pairs is the pairs read, Verdicts the verdict lines written: one per
	// pair whose video was decoded.
	Pairs, Verdicts int
	// Failed are the videos that could not be decoded (also handed to
	// Env.Skipped as they happen).
	Failed []FailedVideo
	// Threshold is the similarity threshold, once fitted or given.
	Threshold *Threshold
	// Cache is the similarity method's frame cache with its counts.
	Cache *FrameCache
	// Replies counts the server method's replies and those that parse.
	Replies *ReplyCount
	// Served is what a served vlm_reader was asked.
	Served *ServedStats
}

// A Threshold is the similarity threshold sentences were flagged by.
type Threshold struct {
	Value float64
	// Fitted is how the threshold did where it was fitted, On names those
	// pairs; Fitted is nil for a threshold given in the options.
	Fitted *Fit
	On     string
}

// ReplyCount is how many replies a server wrote and how many of them parse
// as the prompt asks (the others score 0 for their pair).
type ReplyCount struct{ Replies, Parsed int }

// ServedStats is what a served vlm_reader was asked, as the audit's
// stages.json says it per served role; Name is the role's served name.
type ServedStats struct {
	Name string
	served.StatsSnapshot
}

// verdictRecord is one line of the verdicts file Verify writes, as
// ReadVerdicts reads it back.
type verdictRecord struct {
	Pair       string    `json:"pair"`
	Verifier   string    `json:"verifier"`
	Labels     []int8    `json:"labels,omitempty"`
	Reply      *string   `json:"reply,omitempty"`
	Similarity []float64 `json:"similarity,omitempty"`
}

// Verify judges every sentence of the pairs of opt.Labels (or
// opt.Captions) against its video by opt.Method and writes the verdicts
// JSONL that Score reads to opt.Out. A pair whose video cannot be decoded
// gets no verdict and its video is named to env.Skipped; when no video
// decodes, nothing is written and the error is bad input.
//
// Options that ask for something impossible are an *harness.UsageError, before
// anything is read; a file that cannot be read is harness.ErrBadInput.
// Verify returns its result even with an error: it holds what was done
// before the error (the frame cache's counts, the served role's stats),
// which a caller reports either way. ctx goes to the decoding, the models
// and the server; cancelling it ends Verify with its error.
func Verify(ctx context.Context, opt VerifyOptions, env Env) (*VerifyResult, error) {
	env = env.withDefaults()
	res := &VerifyResult{Verifier: opt.Verifier}
	if err := opt.check(); err != nil {
		return res, err
	}
	input, read := opt.Labels, ReadLabels
	if opt.Captions != "" {
		input, read = opt.Captions, ReadCaptions
	}
	pairs, err := readFile(input, read)
	if err != nil {
		return res, err
	}
	res.Pairs = len(pairs)
	root := filepath.Dir(input)
	if opt.Captions != "" {
		root = "" // caption was given the paths relative to the working directory
	}
	frames, err := opt.sampler(env, root)
	if err != nil {
		return res, err
	}
	var lines []verdictRecord
	switch opt.Method {
	case MethodServer:
		lines, err = verifyByServer(ctx, opt, env, frames, pairs, res)
	case MethodVLM:
		lines, err = verifyByVLM(ctx, opt, env, frames, pairs, res)
	default:
		lines, err = verifyBySimilarity(ctx, opt, env, frames, pairs, input, res)
	}
	if err != nil {
		return res, err
	}
	if len(lines) == 0 {
		return res, fmt.Errorf("%w: no pair's video could be decoded", harness.ErrBadInput)
	}
	if err := writeJSONL(opt.Out, lines); err != nil {
		return res, err
	}
	res.Verdicts = len(lines)
	return res, nil
}

// check refuses options that contradict each other, each by its flags.
func (opt VerifyOptions) check() error {
	threshold := opt.Threshold != nil && !math.IsNaN(*opt.Threshold)
	if (opt.Labels == "") == (opt.Captions == "") || opt.Out == "" {
		return &harness.UsageError{Msg: "--out and one of --labels and --captions are required"}
	}
	if opt.Captions != "" && opt.Method == MethodSimilarity && opt.Fit == "" && !threshold {
		return &harness.UsageError{Msg: "--captions carry no labels to fit the threshold on: give --fit FILE or --threshold T"}
	}
	switch opt.Method {
	case MethodSimilarity, MethodVLM, MethodServer:
	default:
		return harness.Usagef("--method %q: want similarity, vlm or server", opt.Method)
	}
	if opt.Method != MethodSimilarity && (opt.Fit != "" || threshold || opt.Cache != "") {
		return &harness.UsageError{Msg: "--fit, --threshold and --cache belong to --method similarity"}
	}
	if (opt.Method == MethodServer) != (opt.URL != "") {
		return &harness.UsageError{Msg: "--server goes with --method server, and --method server needs --server"}
	}
	return checkNoIncorrect(opt.NoIncorrect)
}

// checkNoIncorrect refuses a policy Score does not know.
func checkNoIncorrect(policy string) error {
	switch policy {
	case NoIncorrectZero, NoIncorrectOne, NoIncorrectSkip:
		return nil
	}
	return harness.Usagef("--no-incorrect %q: want zero, one or skip", policy)
}

// skip records failed in r and names them to env.Skipped.
func (r *VerifyResult) skip(env Env, failed []FailedVideo) {
	r.Failed = append(r.Failed, failed...)
	env.skipped(failed)
}
