package main

import (
	"context"
	"flag"
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/harness/vidomni"
)

// addFrameFlags defines the frame-sampling flags verify and caption share
// into o, their defaults o's.
func addFrameFlags(fs *flag.FlagSet, o *vidomni.FrameOptions) *gpuflag.Flags {
	fs.IntVar(&o.Frames, "frames", o.Frames, "sample `N` frames per video, uniformly (the uniform:N sampler)")
	fs.StringVar(&o.Size, "size", vidomni.DefaultSize, "decode frames at `SIZE` before the model's own preprocessing: S (short side), max:L, short:S,max:L or native")
	fs.StringVar(&o.HWAccel, "hwaccel", o.HWAccel, "decode with `ACCEL`: none (CPU) or cuda (NVDEC, falling back to the CPU with a message)")
	fs.StringVar(&o.Videos, "videos", o.Videos, "`DIR` that relative video paths are under (default: the labels file's directory; the working directory for --captions and caption)")
	fs.StringVar(&o.Models, "models", o.Models, "the models `DIR` holding models.json (required for the roles it runs)")
	device := gpuflag.Add(fs, gpuflag.Device)
	fs.IntVar(&o.Workers, "workers", o.Workers, "decode `N` videos at once (0: one per core)")
	return device
}

// frameOptions finishes o once fs is parsed: the device, and Size left ""
// unless --size was given, so that a served vlm_reader decodes at its own
// size (an empty --size is native, as decode reads it).
func frameOptions(fs *flag.FlagSet, o *vidomni.FrameOptions, device *gpuflag.Flags) {
	o.Device = device.Device
	size := o.Size
	o.Size = ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "size" {
			o.Size = size
			if size == "" {
				o.Size = "native"
			}
		}
	})
}

// addServerFlags defines the flags that name a generating model behind a
// local OpenAI-compatible server into o.
func addServerFlags(fs *flag.FlagSet, o *vidomni.ServerOptions) {
	fs.StringVar(&o.URL, "server", "", "the `URL` of a local OpenAI-compatible server (vLLM, SGLang, llama.cpp: http://127.0.0.1:8000/v1) whose model generates the replies; loopback addresses only")
	fs.StringVar(&o.Model, "server-model", "", "the served model's `NAME` sent with each --server request")
	fs.Int64Var(&o.Seed, "seed", 0, "the generation seed `N` sent to --server (and, for caption, the choice of the paper's instruction)")
}

// vidomniEnv is what verify and caption read of the command's
// environment; the videos that fail to decode are named on stderr as they
// happen.
func vidomniEnv(env *environment) vidomni.Env {
	return vidomni.Env{Stderr: env.stderr, Getenv: env.getenv, Skipped: func(failed []vidomni.FailedVideo) {
		for _, f := range failed {
			fmt.Fprintf(env.stderr, "vidscreen vidomni: skipped %s: %v\n", f.Video, f.Err)
		}
		fmt.Fprintf(env.stderr, "vidscreen vidomni: the pairs of the skipped videos (%d) have no verdict; vidomni score refuses them unless --allow-missing (each then scores 0)\n", len(failed))
	}}
}

func vidomniVerify() *subcommand {
	return &subcommand{
		name:  "verify",
		usage: "--labels FILE | --captions FILE, --out FILE [--method similarity|vlm|server] [flags]",
		long: `Verify judges every sentence of the pairs in FILE (the labels layout, or with
--captions the output of "vidomni caption") against its video and writes a verdicts
JSONL file that "vidomni score" reads.
--method similarity (the default) needs no VLM: the image_text role of --models
embeds the sampled frames and each sentence, a sentence's score is its best frame's
cosine, and sentences under a threshold are flagged Incorrect. The threshold
maximises mean per-pair F1 on labelled pairs (--fit, default the --labels pairs
themselves, which is optimistic) and is printed with the precision, recall and F1 it
gives there; --threshold fixes it instead. Each verdict line also holds the
similarities.
--method vlm asks the vlm_reader role of --models, with the frames and the paper's
verification prompt, for each sentence's label (log p of B "hallucination" against A
"faithful"): that role scores letters and does not write replies. A vlm_reader that
models.json serves (server, server_model) is asked over its server as the audit asks
it, frames decoded at a short side of 448 unless --size is given, and a sentence the
server fails after its retries stops verify, naming the pair.
--method server sends the frames and the paper's prompt (figure 14) to the model of
--server, which writes its reply; the replies are stored raw and parsed when scored,
and verify prints how many parse.
Videos that cannot be decoded are named on stderr and their pairs get no verdict.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			opt := vidomni.DefaultVerifyOptions()
			fs.StringVar(&opt.Labels, "labels", "", "the pairs to verify, a labels JSONL `FILE` (this or --captions)")
			fs.StringVar(&opt.Captions, "captions", "", "verify the unlabelled pairs of a captions JSONL `FILE` as \"vidomni caption\" writes it (this or --labels)")
			fs.StringVar(&opt.Out, "out", "", "write the verdicts JSONL to `FILE` (required)")
			fs.StringVar(&opt.Method, "method", opt.Method, "verify by `METHOD`: similarity (image_text role, no VLM), vlm (vlm_reader role) or server (a generating model behind --server)")
			fs.StringVar(&opt.Verifier, "verifier", "", "the verifier's `NAME` in the verdicts (default: image_text-similarity, vlm_reader or the --server-model name)")
			fs.StringVar(&opt.Fit, "fit", "", "fit the similarity threshold on the labelled pairs of `FILE` (default: --labels)")
			threshold := fs.Float64("threshold", math.NaN(), "flag sentences whose best-frame cosine is below `T` instead of fitting a threshold")
			fs.StringVar(&opt.NoIncorrect, "no-incorrect", opt.NoIncorrect, "when fitting, score pairs without an Incorrect sentence by `POLICY`: zero, one or skip (as score does)")
			fs.StringVar(&opt.Cache, "cache", "", "keep the frame embeddings of --method similarity in `DIR`, keyed by the video's bytes, sampler, size and model, and reuse them")
			device := addFrameFlags(fs, &opt.FrameOptions)
			addServerFlags(fs, &opt.ServerOptions)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q", args)}
				}
				frameOptions(fs, &opt.FrameOptions, device)
				if !math.IsNaN(*threshold) {
					opt.Threshold = threshold
				}
				res, err := vidomni.Verify(ctx, opt, vidomniEnv(env))
				printVerify(env, res)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%d verdicts of %s on %d pairs written to %s\n", res.Verdicts, res.Verifier, res.Pairs, opt.Out)
				return nil
			}
		},
	}
}

// printVerify prints what verify did before it wrote the verdicts, or
// before it failed: how many server replies parse, the threshold, the
// frame cache's counts, what a served vlm_reader was asked.
func printVerify(env *environment, res *vidomni.VerifyResult) {
	if r := res.Replies; r != nil {
		fmt.Fprintf(env.stdout, "%d of %d replies parse as the prompt asks (the others score 0 for their pair)\n", r.Parsed, r.Replies)
	}
	if t := res.Threshold; t != nil && t.Fitted != nil {
		f := t.Fitted
		fmt.Fprintf(env.stdout, "threshold %.6f fitted on %s: precision %.1f%%, recall %.1f%%, F1 %.1f%% over %d pairs\n",
			f.Threshold, t.On, 100*f.Precision, 100*f.Recall, 100*f.F1, f.Pairs)
	} else if t != nil {
		fmt.Fprintf(env.stdout, "threshold %.6f (given)\n", t.Value)
	}
	if c := res.Cache; c != nil {
		fmt.Fprintf(env.stdout, "frame cache %s: %d videos read, %d stored\n", c.Dir, c.Hits, c.Stored)
	}
	if st := res.Served; st != nil {
		fmt.Fprintf(env.stdout, "vlm_reader served by %s (%s): %d questions, %d requests, %d images, mode %s, prefill %v, %d floored, %d failed\n",
			st.URL, st.Name, st.Queries, st.Requests, st.Images, st.Mode, st.Prefill, st.Floored, st.Failed)
	}
}

func vidomniCaption() *subcommand {
	return &subcommand{
		name:  "caption",
		usage: "--models DIR | --server URL --server-model NAME, --out FILE [flags] VIDEO...",
		long: `Caption writes a dense caption of each VIDEO and one JSON line per video to FILE:
{"pair", "video", "source", "caption", "sentences", "frames", "instruction"}, the
sentences as "vidomni split" cuts them, ready to be labelled, or verified with
"vidomni verify --captions FILE".
With --models, the captioner role captions every sampled frame in time order and the
captions are joined into one caption, one sentence a frame (a caption repeating the
previous one is dropped); an image captioner takes no instruction.
With --server, the model behind it gets the sampled frames and one of the paper's five
captioning instructions (figure 13), chosen per video from --seed and the video's
name (the paper draws one at random); "instruction" says which (1-5).`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			opt := vidomni.DefaultCaptionOptions()
			fs.StringVar(&opt.Out, "out", "", "write the captions JSONL to `FILE` (required)")
			fs.StringVar(&opt.Source, "source", "", "the caption source's `NAME` in the output (default: captioner, or the --server-model name)")
			device := addFrameFlags(fs, &opt.FrameOptions)
			addServerFlags(fs, &opt.ServerOptions)
			return func(ctx context.Context, args []string) error {
				frameOptions(fs, &opt.FrameOptions, device)
				opt.Files = args
				res, err := vidomni.Caption(ctx, opt, vidomniEnv(env))
				if err != nil {
					return err
				}
				if res.Empty > 0 {
					fmt.Fprintf(env.stdout, "%d captions written to %s, %d of them empty\n", len(res.Captions), opt.Out, res.Empty)
					fmt.Fprintf(env.stderr, "warning: %d of the %d captions are empty (does the captioner's tokenizer.json know the ids it writes?)\n", res.Empty, len(res.Captions))
					return nil
				}
				fmt.Fprintf(env.stdout, "%d captions written to %s\n", len(res.Captions), opt.Out)
				return nil
			}
		},
	}
}
