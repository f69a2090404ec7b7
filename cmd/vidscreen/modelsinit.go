package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

func modelsInit() *subcommand {
	return &subcommand{
		name:  "init",
		usage: "[--force] DIR",
		short: "write the project's small ONNX models for every required role (no asr, no screen_reader), with tokenizers and manifest",
		long: `Init writes into DIR the project's own small models, one folder per role
(image_text, text_embed, dup_confirm, captioner, lm_reader, vlm_reader) in the
layout of the Hugging Face Hub's ONNX repositories, which transformers.js loads
as it is: config.json with the model_type of the class that runs the role (clip,
bert, vision-encoder-decoder, qwen2, llava), the ONNX files under
onnx/, preprocessor_config.json where the role reads images,
generation_config.json for the generating roles, a generated WordPiece
tokenizer.json with its tokenizer_config.json (a pad token; a ChatML chat template
for the readers), and DIR/models.json naming the folders: a complete
models directory, built by vidscreen itself with no download, so that
"vidscreen audit --videos ROOT --models DIR" runs at once. The models are tiny and
their weights are drawn from fixed seeds: they exercise every stage at full speed
but their answers are not meaningful. The captioner is the exception: a hand-built
one with its own vocabulary that names a frame's main colours and shapes ("a red
square on a blue background"). docs/models.md says how to put real exports
(SigLIP, BGE, MPNet, BLIP, a causal LM, SmolVLM) in their place. A DIR that
already holds a models.json is refused unless --force is given.

The optional roles are left out: screen_reader (vlm_reader serves its steps)
and asr. The project's built asr (the world's, models/onnxbuild/toneasr.go)
hears only the world's pure tones, never speech: in an init'd directory it would
decode every video's audio track for transcripts that are always empty, and
report an audio test that ran and found nothing. "vidscreen world" writes it
with the world's own models (WORLD/models/asr), where the audio family's tones
are there to hear; docs/models.md says how to add Whisper.`,
		flags: func(fls *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			force := fls.Bool("force", false, "replace the files of an existing models directory")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return &usageError{"models init: name one directory DIR"}
				}
				dir := args[0]
				if _, err := os.Stat(filepath.Join(dir, models.ManifestFile)); err == nil && !*force {
					return fmt.Errorf("%w: models init: %s already holds %s; use --force to replace it", errBadInput, dir, models.ManifestFile)
				} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				if err := onnxbuild.WriteModelsDir(dir); err != nil {
					return fmt.Errorf("models init: %w", err)
				}
				fmt.Fprintf(env.stdout, "wrote the small models for %d roles to %s; check them with: vidscreen models check %s\n", len(models.Roles), dir, dir)
				fmt.Fprintln(env.stdout, initNoASR)
				return nil
			}
		},
	}
}

// initNoASR is the line models init prints of the asr role it leaves out:
// the built asr hears the world's tones only, so in a directory meant for
// real videos it would run the audio test on transcripts that are always
// empty; the world's models hold it (vidscreen world).
const initNoASR = "no asr role written (the audio transcript test is off): the built asr hears only the world's tones, not speech; the world's models (vidscreen world) hold it, and docs/models.md says how to add Whisper"
