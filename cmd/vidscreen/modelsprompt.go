package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/models"
)

func modelsPrompt() *subcommand {
	return &subcommand{
		name:  "prompt",
		usage: "--role lm_reader|vlm_reader|screen_reader --item ITEM.json [--frames F1.png,F2.png] DIR",
		short: "print the exact prompt a reader reads for an item, its token ids and the letters' log-probabilities",
		long: `Prompt renders ITEM.json's question and options as the audit's readers do: the
Video-Index authors' wording (or DIR/prompts.json), framed by the reader folder's chat
template (tokenizer_config.json's chat_template, chat_template.json or
chat_template.jinja) with the frames first and the assistant turn prefilled with
"Answer:". It prints one JSON object: prompt (the exact text), ids (its token ids, -1
for each row of an image's features), letters ({"A": log p, ...}), wording and
chat_template. ITEM.json holds "question", "options" and optionally "kind"
(options_only, blind, visual, frame_captions, video_caption, transcript, examples),
"context" and "captions". Compare prompt with transformers'
apply_chat_template(..., continue_final_message=True) and letters with the model's
log-softmax at the last position.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			df := gpuflag.Add(fs, gpuflag.Device)
			role := fs.String("role", "lm_reader", "the reader `ROLE`: lm_reader, vlm_reader or screen_reader")
			item := fs.String("item", "", "the item `FILE` (JSON)")
			frames := fs.String("frames", "", "comma-separated PNG or JPEG `FILES`, shown in order (vlm_reader)")
			threads := fs.Int("threads", 0, "intra-op threads per CPU session (0: one per core)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return &usageError{"models prompt: name one models directory"}
				}
				if *item == "" {
					return &usageError{"models prompt: --item FILE is required"}
				}
				var paths []string
				if *frames != "" {
					paths = strings.Split(*frames, ",")
				}
				rep, err := models.PromptDir(ctx, args[0], models.RuntimeOptions{Device: df.Device, Threads: *threads, Log: env.stderr, Getenv: env.getenv},
					models.Role(*role), *item, paths)
				if err != nil {
					return fmt.Errorf("%w: models prompt: %v", errBadInput, err)
				}
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
		},
	}
}
