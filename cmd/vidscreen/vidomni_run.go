package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/harness/vidomni"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai"
	"github.com/vidscreen/vidscreen/models/served"
)

// vidomniFrameFlags are the frame-sampling flags verify and caption share.
type vidomniFrameFlags struct {
	frames           *int
	size, hwaccel    *string
	videos, modelDir *string
	device           *gpuflag.Flags
	workers          *int
}

func addFrameFlags(fs *flag.FlagSet) *vidomniFrameFlags {
	return &vidomniFrameFlags{
		frames:   fs.Int("frames", 8, "sample `N` frames per video, uniformly (the uniform:N sampler)"),
		size:     fs.String("size", "224", "decode frames at `SIZE` before the model's own preprocessing: S (short side), max:L, short:S,max:L or native"),
		hwaccel:  fs.String("hwaccel", "none", "decode with `ACCEL`: none (CPU) or cuda (NVDEC, falling back to the CPU with a message)"),
		videos:   fs.String("videos", "", "`DIR` that relative video paths are under (default: the labels file's directory; the working directory for --captions and caption)"),
		modelDir: fs.String("models", "", "the models `DIR` holding models.json (required for the roles it runs)"),
		device:   gpuflag.Add(fs, gpuflag.Device),
		workers:  fs.Int("workers", 0, "decode `N` videos at once (0: one per core)"),
	}
}

// sampler checks the frame flags and returns the frame sampler.
func (f *vidomniFrameFlags) sampler(env *environment, defaultRoot string) (*vidomni.FrameSampler, error) {
	if *f.frames < 1 || *f.frames > 1024 {
		return nil, &usageError{fmt.Sprintf("--frames %d: want 1 to 1024", *f.frames)}
	}
	sampler, err := decode.ParseSampler("uniform:" + strconv.Itoa(*f.frames))
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	size, err := decode.ParseSize(*f.size)
	if err != nil {
		return nil, &usageError{"--size: " + err.Error()}
	}
	root := *f.videos
	if root == "" {
		root = defaultRoot
	}
	pool := &decode.Pool{Workers: *f.workers, Options: decode.Options{HWAccel: *f.hwaccel},
		Notify: func(msg string) { fmt.Fprintln(env.stderr, msg) }}
	return &vidomni.FrameSampler{Pool: pool, Sampler: sampler, Size: size, Root: root}, nil
}

// manifest loads the manifest of --models.
func (f *vidomniFrameFlags) manifest() (*models.Manifest, error) {
	if *f.modelDir == "" {
		return nil, &usageError{"--models DIR is required"}
	}
	m, err := models.LoadManifest(*f.modelDir)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	return m, nil
}

// models loads the manifest of --models and ONNX Runtime for --device.
func (f *vidomniFrameFlags) models(env *environment) (*models.Manifest, *models.Runtime, gpu.Device, error) {
	var dev gpu.Device
	m, err := f.manifest()
	if err != nil {
		return nil, nil, dev, err
	}
	one, err := oneDevice(f.device.Device)
	if err != nil {
		return nil, nil, dev, err
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: f.device.Device, Log: env.stderr, Getenv: env.getenv})
	if err != nil {
		return nil, nil, dev, fmt.Errorf("--models: %w", err)
	}
	return m, rt, one, nil
}

// serverFlags name a generating model behind a local OpenAI-compatible
// server.
type serverFlags struct {
	url, model *string
	seed       *int64
}

func addServerFlags(fs *flag.FlagSet) *serverFlags {
	return &serverFlags{
		url:   fs.String("server", "", "the `URL` of a local OpenAI-compatible server (vLLM, SGLang, llama.cpp: http://127.0.0.1:8000/v1) whose model generates the replies; loopback addresses only"),
		model: fs.String("server-model", "", "the served model's `NAME` sent with each --server request"),
		seed:  fs.Int64("seed", 0, "the generation seed `N` sent to --server (and, for caption, the choice of the paper's instruction)"),
	}
}

func (f *serverFlags) client() (*openai.Client, error) {
	if *f.url == "" || *f.model == "" {
		return nil, &usageError{"--server and --server-model go together"}
	}
	c, err := openai.New(openai.Config{BaseURL: *f.url, Model: *f.model, Chat: true})
	if err != nil {
		return nil, &usageError{"--server: " + err.Error()}
	}
	return c, nil
}

func reportFailed(env *environment, failed []vidomni.FailedVideo) {
	for _, f := range failed {
		fmt.Fprintf(env.stderr, "vidscreen vidomni: skipped %s: %v\n", f.Video, f.Err)
	}
	if len(failed) > 0 {
		fmt.Fprintf(env.stderr, "vidscreen vidomni: the pairs of the skipped videos (%d) have no verdict; vidomni score refuses them unless --allow-missing (each then scores 0)\n", len(failed))
	}
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
			labels := fs.String("labels", "", "the pairs to verify, a labels JSONL `FILE` (this or --captions)")
			captions := fs.String("captions", "", "verify the unlabelled pairs of a captions JSONL `FILE` as \"vidomni caption\" writes it (this or --labels)")
			out := fs.String("out", "", "write the verdicts JSONL to `FILE` (required)")
			method := fs.String("method", "similarity", "verify by `METHOD`: similarity (image_text role, no VLM), vlm (vlm_reader role) or server (a generating model behind --server)")
			name := fs.String("verifier", "", "the verifier's `NAME` in the verdicts (default: image_text-similarity, vlm_reader or the --server-model name)")
			fit := fs.String("fit", "", "fit the similarity threshold on the labelled pairs of `FILE` (default: --labels)")
			threshold := fs.Float64("threshold", math.NaN(), "flag sentences whose best-frame cosine is below `T` instead of fitting a threshold")
			policy := fs.String("no-incorrect", vidomni.NoIncorrectZero, "when fitting, score pairs without an Incorrect sentence by `POLICY`: zero, one or skip (as score does)")
			cacheDir := fs.String("cache", "", "keep the frame embeddings of --method similarity in `DIR`, keyed by the video's bytes, sampler, size and model, and reuse them")
			ff := addFrameFlags(fs)
			sf := addServerFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q", args)}
				}
				if (*labels == "") == (*captions == "") || *out == "" {
					return &usageError{"--out and one of --labels and --captions are required"}
				}
				if *captions != "" && *method == "similarity" && *fit == "" && math.IsNaN(*threshold) {
					return &usageError{"--captions carry no labels to fit the threshold on: give --fit FILE or --threshold T"}
				}
				switch *method {
				case "similarity", "vlm", "server":
				default:
					return &usageError{fmt.Sprintf("--method %q: want similarity, vlm or server", *method)}
				}
				if *method != "similarity" && (*fit != "" || !math.IsNaN(*threshold) || *cacheDir != "") {
					return &usageError{"--fit, --threshold and --cache belong to --method similarity"}
				}
				if (*method == "server") != (*sf.url != "") {
					return &usageError{"--server goes with --method server, and --method server needs --server"}
				}
				switch *policy {
				case vidomni.NoIncorrectZero, vidomni.NoIncorrectOne, vidomni.NoIncorrectSkip:
				default:
					return &usageError{fmt.Sprintf("--no-incorrect %q: want zero, one or skip", *policy)}
				}
				input, read := *labels, vidomni.ReadLabels
				if *captions != "" {
					input, read = *captions, vidomni.ReadCaptions
				}
				pairs, err := readVidomniFile(input, read)
				if err != nil {
					return err
				}
				root := filepath.Dir(input)
				if *captions != "" {
					root = "" // caption was given the paths relative to the working directory
				}
				frames, err := ff.sampler(env, root)
				if err != nil {
					return err
				}
				var lines []verdictLine
				switch *method {
				case "server":
					lines, err = verifyServer(ctx, env, sf, frames, pairs, name)
				case "vlm":
					sizeSet := false
					fs.Visit(func(f *flag.Flag) { sizeSet = sizeSet || f.Name == "size" })
					lines, err = verifyVLM(ctx, env, ff, frames, pairs, name, sizeSet)
				default:
					lines, err = verifySimilarity(ctx, env, ff, frames, pairs, name, input, *fit, *threshold, *policy, *cacheDir)
				}
				if err != nil {
					return err
				}
				if len(lines) == 0 {
					return fmt.Errorf("%w: no pair's video could be decoded", errBadInput)
				}
				err = writeOut(*out, func(w io.Writer) error {
					enc := json.NewEncoder(w)
					enc.SetEscapeHTML(false)
					for _, l := range lines {
						if err := enc.Encode(l); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%d verdicts of %s on %d pairs written to %s\n", len(lines), *name, len(pairs), *out)
				return nil
			}
		},
	}
}

// verdictLine is one line of the verdicts file verify writes.
type verdictLine struct {
	Pair       string    `json:"pair"`
	Verifier   string    `json:"verifier"`
	Labels     []int8    `json:"labels,omitempty"`
	Reply      *string   `json:"reply,omitempty"`
	Similarity []float64 `json:"similarity,omitempty"`
}

func verifyServer(ctx context.Context, env *environment, sf *serverFlags, frames *vidomni.FrameSampler, pairs []*vidomni.Pair, name *string) ([]verdictLine, error) {
	c, err := sf.client()
	if err != nil {
		return nil, err
	}
	if *name == "" {
		*name = *sf.model
	}
	replies, failed, err := vidomni.VerifyChat(ctx, c, frames, pairs, *sf.seed)
	if err != nil {
		return nil, err
	}
	reportFailed(env, failed)
	lines := make([]verdictLine, len(replies))
	parsed := 0
	for i, r := range replies {
		if _, err := vidomni.ParseReply(r.Reply, len(r.Pair.Sentences)); err == nil {
			parsed++
		}
		lines[i] = verdictLine{Pair: r.Pair.ID, Verifier: *name, Reply: &replies[i].Reply}
	}
	fmt.Fprintf(env.stdout, "%d of %d replies parse as the prompt asks (the others score 0 for their pair)\n", parsed, len(replies))
	return lines, nil
}

// verifyVLM verifies with the vlm_reader role of --models: its ONNX model,
// or, when the manifest names a server for it, the served model
// (verifyServedVLM), as the audit reads either. sizeSet says whether
// --size was given.
func verifyVLM(ctx context.Context, env *environment, ff *vidomniFrameFlags, frames *vidomni.FrameSampler, pairs []*vidomni.Pair, name *string, sizeSet bool) ([]verdictLine, error) {
	m, err := ff.manifest()
	if err != nil {
		return nil, err
	}
	if *name == "" {
		*name = string(models.RoleVLMReader)
	}
	var vlm vidomni.LetterVLM
	if spec, ok := m.Roles[models.RoleVLMReader]; ok && spec.Served() {
		sv, err := openServedVerifier(m, spec, env)
		if err != nil {
			return nil, err
		}
		if !sizeSet {
			frames.Size = decode.Size{Short: served.DecodeShort}
		}
		defer sv.report(env)
		vlm = sv
	} else {
		m, rt, dev, err := ff.models(env)
		if err != nil {
			return nil, err
		}
		r, err := rt.OpenVLMReader(m, dev)
		if err != nil {
			return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
		}
		defer r.Close()
		vlm = r
	}
	judged, failed, err := vidomni.VerifyVLM(ctx, vlm, frames, pairs)
	if err != nil {
		return nil, err
	}
	reportFailed(env, failed)
	lines := make([]verdictLine, len(judged))
	for i, j := range judged {
		lines[i] = verdictLine{Pair: j.Pair.ID, Verifier: *name, Labels: j.Labels}
	}
	return lines, nil
}

func verifySimilarity(ctx context.Context, env *environment, ff *vidomniFrameFlags, frames *vidomni.FrameSampler, pairs []*vidomni.Pair, name *string,
	labels, fit string, threshold float64, policy, cacheDir string) ([]verdictLine, error) {
	m, rt, dev, err := ff.models(env)
	if err != nil {
		return nil, err
	}
	var cache *vidomni.FrameCache
	if cacheDir != "" {
		folder, spec, err := m.Folder(models.RoleImageText)
		if err != nil {
			return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
		}
		id, err := models.RoleName(models.RoleImageText, folder, spec)
		if err != nil {
			return nil, fmt.Errorf("--cache: %w", err)
		}
		cache = &vidomni.FrameCache{Dir: cacheDir, Model: id}
		defer func() {
			fmt.Fprintf(env.stdout, "frame cache %s: %d videos read, %d stored\n", cacheDir, cache.Hits, cache.Stored)
		}()
	}
	if *name == "" {
		*name = string(models.RoleImageText) + "-similarity"
	}
	it, err := rt.OpenImageText(m, dev)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	defer it.Close()
	sims, failed, err := vidomni.Similarities(ctx, it, frames, cache, pairs)
	if err != nil {
		return nil, err
	}
	reportFailed(env, failed)
	t := threshold
	if math.IsNaN(t) {
		fitPairs, fitSims := pairs, sims
		on := labels + " (the pairs verified: in-sample, optimistic)"
		if fit != "" {
			on = fit
			if fitPairs, err = readVidomniFile(fit, vidomni.ReadLabels); err != nil {
				return nil, err
			}
			fitFrames := *frames
			if *ff.videos == "" {
				fitFrames.Root = filepath.Dir(fit)
			}
			var ffailed []vidomni.FailedVideo
			if fitSims, ffailed, err = vidomni.Similarities(ctx, it, &fitFrames, cache, fitPairs); err != nil {
				return nil, err
			}
			reportFailed(env, ffailed)
		}
		f, err := vidomni.FitThreshold(fitPairs, fitSims, vidomni.Options{NoIncorrect: policy})
		if err != nil {
			return nil, fmt.Errorf("%w: fit the threshold: %v", errBadInput, err)
		}
		fmt.Fprintf(env.stdout, "threshold %.6f fitted on %s: precision %.1f%%, recall %.1f%%, F1 %.1f%% over %d pairs\n",
			f.Threshold, on, 100*f.Precision, 100*f.Recall, 100*f.F1, f.Pairs)
		t = f.Threshold
	} else {
		fmt.Fprintf(env.stdout, "threshold %.6f (given)\n", t)
	}
	var lines []verdictLine
	for i, p := range pairs {
		if sims[i] != nil {
			lines = append(lines, verdictLine{Pair: p.ID, Verifier: *name, Labels: vidomni.Flag(sims[i], t), Similarity: sims[i]})
		}
	}
	return lines, nil
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
			out := fs.String("out", "", "write the captions JSONL to `FILE` (required)")
			source := fs.String("source", "", "the caption source's `NAME` in the output (default: captioner, or the --server-model name)")
			ff := addFrameFlags(fs)
			sf := addServerFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return &usageError{"name at least one VIDEO"}
				}
				if *out == "" {
					return &usageError{"--out FILE is required"}
				}
				if (*sf.url == "") == (*ff.modelDir == "") {
					return &usageError{"give --models (the captioner role) or --server (a generating model), one of them"}
				}
				frames, err := ff.sampler(env, "")
				if err != nil {
					return err
				}
				var caps []vidomni.DenseCaption
				var failed []vidomni.FailedVideo
				if *sf.url != "" {
					c, err := sf.client()
					if err != nil {
						return err
					}
					if *source == "" {
						*source = *sf.model
					}
					if caps, failed, err = vidomni.CaptionChat(ctx, c, *source, frames, args, *sf.seed); err != nil {
						return err
					}
				} else {
					m, rt, dev, err := ff.models(env)
					if err != nil {
						return err
					}
					capt, err := rt.OpenCaptioner(m, dev)
					if err != nil {
						return fmt.Errorf("%w: --models: %v", errBadInput, err)
					}
					defer capt.Close()
					if *source == "" {
						*source = string(models.RoleCaptioner)
					}
					if caps, failed, err = vidomni.WriteCaptions(ctx, capt, *source, frames, args); err != nil {
						return err
					}
				}
				reportFailed(env, failed)
				if len(caps) == 0 {
					return fmt.Errorf("%w: no video could be decoded", errBadInput)
				}
				err = writeOut(*out, func(w io.Writer) error {
					enc := json.NewEncoder(w)
					enc.SetEscapeHTML(false)
					for _, c := range caps {
						if err := enc.Encode(c); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
				// A captioner whose ids its tokenizer does not know writes ""
				// without an error: say so rather than hand on blank captions.
				empty := 0
				for _, c := range caps {
					if strings.TrimSpace(c.Caption) == "" {
						empty++
					}
				}
				if empty > 0 {
					fmt.Fprintf(env.stdout, "%d captions written to %s, %d of them empty\n", len(caps), *out, empty)
					fmt.Fprintf(env.stderr, "warning: %d of the %d captions are empty (does the captioner's tokenizer.json know the ids it writes?)\n", empty, len(caps))
					return nil
				}
				fmt.Fprintf(env.stdout, "%d captions written to %s\n", len(caps), *out)
				return nil
			}
		},
	}
}

// writeOut writes a command's output file, creating its directory.
func writeOut(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, write)
}
