package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness/vidomni"
	"github.com/vidscreen/vidscreen/models"
)

// vidomniFrameFlags are the frame-sampling flags verify and caption share.
type vidomniFrameFlags struct {
	frames           *int
	size, hwaccel    *string
	videos, modelDir *string
	device           *string
	workers          *int
}

func addFrameFlags(fs *flag.FlagSet) *vidomniFrameFlags {
	return &vidomniFrameFlags{
		frames:   fs.Int("frames", 8, "sample `N` frames per video, uniformly (the uniform:N sampler)"),
		size:     fs.String("size", "224", "decode frames at `SIZE` before the model's own preprocessing: S (short side), max:L, short:S,max:L or native"),
		hwaccel:  fs.String("hwaccel", "none", "decode with `ACCEL`: none (CPU) or cuda (NVDEC, falling back to the CPU with a message)"),
		videos:   fs.String("videos", "", "`DIR` that relative video paths are under (default: the directory of the input file, or the working directory)"),
		modelDir: fs.String("models", "", "the models `DIR` holding models.json (required)"),
		device:   fs.String("device", "cpu", "run the models on `DEVICE`: cpu, cuda or cuda:N"),
		workers:  fs.Int("workers", 0, "decode `N` videos at once (0: one per core)"),
	}
}

// open checks the flags and returns the frame sampler, the manifest, the
// runtime and the device.
func (f *vidomniFrameFlags) open(env *environment, defaultRoot string) (*vidomni.FrameSampler, *models.Manifest, *models.Runtime, models.Device, error) {
	var dev models.Device
	if *f.modelDir == "" {
		return nil, nil, nil, dev, &usageError{"--models DIR is required"}
	}
	if *f.frames < 1 || *f.frames > 1024 {
		return nil, nil, nil, dev, &usageError{fmt.Sprintf("--frames %d: want 1 to 1024", *f.frames)}
	}
	sampler, err := decode.ParseSampler("uniform:" + strconv.Itoa(*f.frames))
	if err != nil {
		return nil, nil, nil, dev, &usageError{err.Error()}
	}
	size, err := decode.ParseSize(*f.size)
	if err != nil {
		return nil, nil, nil, dev, &usageError{"--size: " + err.Error()}
	}
	devs, err := models.ParseDevices(*f.device)
	if err != nil || len(devs) != 1 {
		return nil, nil, nil, dev, &usageError{fmt.Sprintf("--device %q: name one device (cpu, cuda or cuda:N)", *f.device)}
	}
	m, err := models.LoadManifest(*f.modelDir)
	if err != nil {
		return nil, nil, nil, dev, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: *f.device, Log: env.stderr, Getenv: env.getenv})
	if err != nil {
		return nil, nil, nil, dev, fmt.Errorf("--models: %w", err)
	}
	root := *f.videos
	if root == "" {
		root = defaultRoot
	}
	pool := &decode.Pool{Workers: *f.workers, Options: decode.Options{HWAccel: *f.hwaccel},
		Notify: func(msg string) { fmt.Fprintln(env.stderr, msg) }}
	return &vidomni.FrameSampler{Pool: pool, Sampler: sampler, Size: size, Root: root}, m, rt, devs[0], nil
}

func reportFailed(env *environment, failed []vidomni.FailedVideo) {
	for _, f := range failed {
		fmt.Fprintf(env.stderr, "vidscreen vidomni: skipped %s: %v\n", f.Video, f.Err)
	}
}

func vidomniVerify() *vidomniSubcommand {
	return &vidomniSubcommand{
		name:  "verify",
		usage: "--labels FILE --models DIR --out FILE [--method similarity|vlm] [flags]",
		long: `Verify judges every sentence of the pairs in FILE (the labels layout) against its
video and writes a verdicts JSONL file that "vidomni score" reads.
--method similarity (the default) needs no VLM: the image_text role embeds the
sampled frames and each sentence, a sentence's score is its best frame's cosine,
and sentences under a threshold are flagged Incorrect. The threshold maximises mean
per-pair F1 on labelled pairs (--fit, default the --labels pairs themselves, which
is optimistic) and is printed with the precision, recall and F1 it gives there;
--threshold fixes it instead. Each verdict line also holds the similarities.
--method vlm asks the vlm_reader role, with the frames and the paper's verification
prompt, for each sentence's label (log p of B "hallucination" against A "faithful").
Videos that cannot be decoded are named on stderr and their pairs get no verdict.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			labels := fs.String("labels", "", "the pairs to verify, a labels JSONL `FILE` (required)")
			out := fs.String("out", "", "write the verdicts JSONL to `FILE` (required)")
			method := fs.String("method", "similarity", "verify by `METHOD`: similarity (image_text role, no VLM) or vlm (vlm_reader role)")
			name := fs.String("verifier", "", "the verifier's `NAME` in the verdicts (default: image_text-similarity or vlm_reader)")
			fit := fs.String("fit", "", "fit the similarity threshold on the labelled pairs of `FILE` (default: --labels)")
			threshold := fs.Float64("threshold", math.NaN(), "flag sentences whose best-frame cosine is below `T` instead of fitting a threshold")
			policy := fs.String("no-incorrect", vidomni.NoIncorrectZero, "when fitting, score pairs without an Incorrect sentence by `POLICY`: zero, one or skip (as score does)")
			ff := addFrameFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q", args)}
				}
				if *labels == "" || *out == "" {
					return &usageError{"--labels and --out are required"}
				}
				if *method != "similarity" && *method != "vlm" {
					return &usageError{fmt.Sprintf("--method %q: want similarity or vlm", *method)}
				}
				if *method == "vlm" && (*fit != "" || !math.IsNaN(*threshold)) {
					return &usageError{"--fit and --threshold belong to --method similarity"}
				}
				switch *policy {
				case vidomni.NoIncorrectZero, vidomni.NoIncorrectOne, vidomni.NoIncorrectSkip:
				default:
					return &usageError{fmt.Sprintf("--no-incorrect %q: want zero, one or skip", *policy)}
				}
				pairs, err := readVidomniFile(*labels, vidomni.ReadLabels)
				if err != nil {
					return err
				}
				frames, m, rt, dev, err := ff.open(env, filepath.Dir(*labels))
				if err != nil {
					return err
				}
				var judged []vidomni.Judged
				if *method == "vlm" {
					if *name == "" {
						*name = string(models.RoleVLMReader)
					}
					vlm, err := rt.OpenVLMReader(m, dev)
					if err != nil {
						return fmt.Errorf("%w: --models: %v", errBadInput, err)
					}
					defer vlm.Close()
					var failed []vidomni.FailedVideo
					judged, failed, err = vidomni.VerifyVLM(ctx, vlm, frames, pairs)
					if err != nil {
						return err
					}
					reportFailed(env, failed)
				} else {
					if *name == "" {
						*name = string(models.RoleImageText) + "-similarity"
					}
					it, err := rt.OpenImageText(m, dev)
					if err != nil {
						return fmt.Errorf("%w: --models: %v", errBadInput, err)
					}
					defer it.Close()
					sims, failed, err := vidomni.Similarities(ctx, it, frames, pairs)
					if err != nil {
						return err
					}
					reportFailed(env, failed)
					t := *threshold
					if math.IsNaN(t) {
						fitPairs, fitSims := pairs, sims
						if *fit != "" {
							if fitPairs, err = readVidomniFile(*fit, vidomni.ReadLabels); err != nil {
								return err
							}
							fitFrames := *frames
							if *ff.videos == "" {
								fitFrames.Root = filepath.Dir(*fit)
							}
							var ffailed []vidomni.FailedVideo
							if fitSims, ffailed, err = vidomni.Similarities(ctx, it, &fitFrames, fitPairs); err != nil {
								return err
							}
							reportFailed(env, ffailed)
						}
						f, err := vidomni.FitThreshold(fitPairs, fitSims, vidomni.Options{NoIncorrect: *policy})
						if err != nil {
							return fmt.Errorf("%w: fit the threshold: %v", errBadInput, err)
						}
						on := *labels + " (the pairs verified: in-sample, optimistic)"
						if *fit != "" {
							on = *fit
						}
						fmt.Fprintf(env.stdout, "threshold %.6f fitted on %s: precision %.1f%%, recall %.1f%%, F1 %.1f%% over %d pairs\n",
							f.Threshold, on, 100*f.Precision, 100*f.Recall, 100*f.F1, f.Pairs)
						t = f.Threshold
					} else {
						fmt.Fprintf(env.stdout, "threshold %.6f (given)\n", t)
					}
					for i, p := range pairs {
						if sims[i] != nil {
							judged = append(judged, vidomni.Judged{Pair: p, Labels: vidomni.Flag(sims[i], t), Similarity: sims[i]})
						}
					}
				}
				if len(judged) == 0 {
					return fmt.Errorf("%w: no pair's video could be decoded", errBadInput)
				}
				n, err := writeVerdicts(*out, *name, judged)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%d verdicts of %s on %d pairs written to %s\n", n, *name, len(pairs), *out)
				return nil
			}
		},
	}
}

// writeVerdicts writes one verdicts line per judged pair (in the labels'
// order), under a temporary name renamed at the end.
func writeVerdicts(path, verifier string, judged []vidomni.Judged) (int, error) {
	type line struct {
		Pair       string    `json:"pair"`
		Verifier   string    `json:"verifier"`
		Labels     []int8    `json:"labels"`
		Similarity []float64 `json:"similarity,omitempty"`
	}
	n := 0
	err := writeAtomic(path, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		for _, j := range judged {
			if j.Pair == nil {
				continue // its video failed
			}
			if err := enc.Encode(line{j.Pair.ID, verifier, j.Labels, j.Similarity}); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

func writeAtomic(path string, write func(*bufio.Writer) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

func vidomniCaption() *vidomniSubcommand {
	return &vidomniSubcommand{
		name:  "caption",
		usage: "--models DIR --out FILE [flags] VIDEO...",
		long: `Caption writes a dense caption of each VIDEO with the captioner role: every sampled
frame is captioned in time order and the captions are joined into one caption, one
sentence a frame (a caption repeating the previous one is dropped). It writes one JSON
line per video to FILE: {"video", "source", "caption", "sentences", "frames"}, the
sentences as "vidomni split" cuts them, ready to be labelled. An image captioner takes
no instruction; the paper's five captioning instructions (figure 13) are
vidomni.CaptioningInstructions, for generating VLMs.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the captions JSONL to `FILE` (required)")
			source := fs.String("source", string(models.RoleCaptioner), "the caption source's `NAME` in the output")
			ff := addFrameFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return &usageError{"name at least one VIDEO"}
				}
				if *out == "" {
					return &usageError{"--out FILE is required"}
				}
				frames, m, rt, dev, err := ff.open(env, "")
				if err != nil {
					return err
				}
				capt, err := rt.OpenCaptioner(m, dev)
				if err != nil {
					return fmt.Errorf("%w: --models: %v", errBadInput, err)
				}
				defer capt.Close()
				caps, failed, err := vidomni.WriteCaptions(ctx, capt, *source, frames, args)
				if err != nil {
					return err
				}
				reportFailed(env, failed)
				if len(caps) == 0 {
					return fmt.Errorf("%w: no video could be decoded", errBadInput)
				}
				err = writeAtomic(*out, func(w *bufio.Writer) error {
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
				fmt.Fprintf(env.stdout, "%d captions written to %s\n", len(caps), *out)
				return nil
			}
		},
	}
}
