package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/kernels/npy"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/embedrows"
)

func modelsEmbed() *subcommand {
	return &subcommand{
		name:  "embed",
		usage: "--role image_text|text_embed|dup_confirm --out OUT.npy (--texts FILE | --images LIST) [--device cpu|cuda:N] DIR",
		short: "write the embeddings a role gives texts or images, as a float32 .npy",
		long: `Embed opens one embedding role of the models directory DIR and writes OUT.npy,
float32, one row per input in input order: exactly the vector the audit uses (after
pooling and normalisation to unit length). --texts FILE holds one text per line
(image_text, text_embed, dup_confirm); --images LIST one PNG or JPEG path per line
(image_text), each preprocessed from its full resolution as the role's
preprocessor_config.json says. An empty line is an error naming the file and the line.
Compare the rows with your own reference (Python transformers, transformers.js) to
check an export.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			df := gpuflag.Add(fs, gpuflag.Device)
			role := fs.String("role", "", "the `ROLE` to run: image_text, text_embed or dup_confirm")
			out := fs.String("out", "", "the .npy `FILE` to write")
			texts := fs.String("texts", "", "a `FILE` of texts, one per line")
			images := fs.String("images", "", "a `LIST` of PNG or JPEG paths, one per line (image_text)")
			threads := fs.Int("threads", 0, "intra-op threads per CPU session (0: one per core)")
			return func(ctx context.Context, args []string) error {
				switch {
				case len(args) != 1:
					return &usageError{"models embed: name one models directory"}
				case *role == "":
					return &usageError{"models embed: --role is required"}
				case *out == "":
					return &usageError{"models embed: --out OUT.npy is required"}
				case (*texts == "") == (*images == ""):
					return &usageError{"models embed: give one of --texts FILE and --images LIST"}
				}
				dev := gpu.CPUDevice()
				if df.Device.CUDA {
					devs, note, err := gpu.Select(df.Device, gpu.Discover(gpu.DiscoverOptions{Getenv: env.getenv}))
					if err != nil {
						return &usageError{err.Error()}
					}
					if note != "" {
						fmt.Fprintf(env.stderr, "vidscreen models embed: %s\n", note)
					}
					dev = devs[0]
				}
				req := embedrows.Request{Role: models.Role(*role), Device: dev}
				var err error
				if *texts != "" {
					req.Texts, err = embedrows.ReadLines(*texts)
				} else {
					req.Images, err = embedrows.ReadLines(*images)
				}
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				man, err := models.LoadManifest(args[0])
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				rt, err := models.NewRuntime(models.RuntimeOptions{Device: df.Device, Threads: *threads, Log: env.stderr, Getenv: env.getenv})
				if err != nil {
					return err
				}
				m, err := embedrows.Embed(ctx, rt, man, req)
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				if err := npy.WriteFile(*out, m, "<f4"); err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%s: %d rows of %d (%s)\n", *out, m.Rows, m.Cols, *role)
				return nil
			}
		},
	}
}
