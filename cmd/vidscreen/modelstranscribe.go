package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/transcribe"
)

func modelsTranscribe() *subcommand {
	return &subcommand{
		name:  "transcribe",
		usage: "[--device cpu|cuda:N] [--language CODE] DIR AUDIO...",
		short: "transcribe audio or video files with the asr role, one JSON line per file",
		long: `Transcribe opens the asr role of the models directory DIR (an ONNX Whisper export)
and transcribes the first audio track of each AUDIO file (an audio or video file
FFmpeg reads, resampled to 16 kHz mono, as the audit hears it), writing one JSON line
per file: {"file", "text", "ids": [[token ids of each 30 s window]], "language"}, and
"no_audio": true for a file without an audio stream. The language is --language,
else the asr entry's "language", else detected from the first 30 s when the model is
multilingual. Compare the ids with transformers' or transformers.js's Whisper
generate on the same export.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			df := gpuflag.Add(fs, gpuflag.Device)
			threads := fs.Int("threads", 0, "intra-op threads per CPU session (0: one per core)")
			lang := fs.String("language", "", "the `CODE` to transcribe in (de, or <|de|>), in place of the manifest's or detection")
			return func(ctx context.Context, args []string) error {
				if len(args) < 2 {
					return &usageError{"models transcribe: name a models directory and one audio or video file or more"}
				}
				if df.Device.CUDA {
					if _, note, err := gpu.Select(df.Device, gpu.Discover(gpu.DiscoverOptions{Getenv: env.getenv})); err != nil {
						return &usageError{err.Error()}
					} else if note != "" {
						fmt.Fprintf(env.stderr, "vidscreen models transcribe: %s\n", note)
					}
				}
				t, err := transcribe.Open(args[0], transcribe.Options{Language: *lang,
					Runtime: models.RuntimeOptions{Device: df.Device, Threads: *threads, Log: env.stderr, Getenv: env.getenv}})
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				defer t.Close()
				enc := json.NewEncoder(env.stdout)
				enc.SetEscapeHTML(false)
				err = transcribe.Files(ctx, t, args[1:], func(r transcribe.Result) error { return enc.Encode(r) })
				if err != nil && decode.KindOf(err) != "" {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				return err
			}
		},
	}
}
