package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/tokenizer"
)

func modelsSubcommands() []*subcommand {
	return []*subcommand{modelsCheck(), modelsDevices(), modelsEmbed(), modelsInit(), modelsPrompt(), modelsTokenize(), modelsTranscribe()}
}

func newModelsCommand() *command {
	return &command{
		name:  "models",
		short: "write the small models, check a models directory, the GPUs, or a tokenizer file",
		usage: "check|devices|embed|init|prompt|tokenize|transcribe [flags] [arguments]",
		long:  modelsHelp(),
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			return func(ctx context.Context, args []string) error {
				return dispatch(ctx, "models", modelsSubcommands(), args, env)
			}
		},
	}
}

// modelsHelp is the help page of "vidscreen models": every subcommand with
// its description and flags. "vidscreen models SUB --help" shows SUB alone.
func modelsHelp() string {
	return subcommandHelp("models", `Examples:

	vidscreen models init vidscreen-models/                # the project's small models
	vidscreen models check --device cuda:0 vidscreen-models/
	vidscreen models devices

Models looks at the local models vidscreen runs, without running an audit.
docs/models.md says how to export the real models to ONNX and lay out a models
directory.`, modelsSubcommands())
}

func modelsTokenize() *subcommand {
	return &subcommand{
		name:  "tokenize",
		usage: "--tokenizer FILE [--special=false] [--padding] < LINES",
		short: "encode lines of standard input, one JSON array of token ids per line",
		long: `Tokenize reads a Hugging Face tokenizer.json and encodes each line of standard
input (without its line ending) as the file says: normalizer, pre-tokenizer, model,
post-processor (special tokens, unless --special=false) and truncation; the padding
the file configures (all-MiniLM's pads every text to 128) only with --padding. It
writes one JSON array of ids per input line, for comparing with
tokenizer.encode(line).ids of the Python tokenizers library (after
tokenizer.no_padding(), unless --padding).`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			path := fs.String("tokenizer", "", "the tokenizer.json `FILE` to use")
			special := fs.Bool("special", true, "add the special tokens the post-processor adds ([CLS], <|startoftext|>, ...)")
			pad := fs.Bool("padding", false, "pad as the file configures, as a batch would be")
			return func(ctx context.Context, args []string) error {
				if *path == "" {
					return &usageError{"models tokenize: --tokenizer FILE is required"}
				}
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("models tokenize: unexpected argument %q; text comes on standard input", args[0])}
				}
				tok, err := tokenizer.Load(*path)
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				if !*pad {
					tok.SetPadding(nil)
				}
				return tokenizeLines(ctx, tok, *special, env.stdin, env.stdout)
			}
		},
	}
}

// tokenizeLines encodes each line of in and writes its ids to out.
func tokenizeLines(ctx context.Context, tok *tokenizer.Tokenizer, special bool, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	w := bufio.NewWriter(out)
	var buf []byte
	for line := 1; sc.Scan(); line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		text := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8.ValidString(text) {
			// The tokenizer would drop the bytes silently and encode
			// something other than the line.
			return fmt.Errorf("%w: standard input line %d: invalid UTF-8 at byte %d", errBadInput, line, invalidUTF8At(text)+1)
		}
		enc, err := tok.Encode(text, special)
		if err != nil {
			return fmt.Errorf("%w: standard input line %d: %v", errBadInput, line, err)
		}
		buf = append(buf[:0], '[')
		for i, id := range enc.IDs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendInt(buf, int64(id), 10)
		}
		buf = append(buf, ']', '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%w: standard input: a line is longer than 64 MiB", errBadInput)
		}
		return fmt.Errorf("read standard input: %w", err)
	}
	return w.Flush()
}

// invalidUTF8At is the 0-based byte offset of the first invalid UTF-8
// sequence of s, or -1.
func invalidUTF8At(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return i
			}
		}
	}
	return -1
}

func modelsCheck() *subcommand {
	return &subcommand{
		name:  "check",
		usage: "[--device cpu|cuda:N] [--roles a,b] [--json] DIR",
		short: "validate a models directory and print what each role gets",
		long: `Check reads DIR/models.json and, for every role (image_text, text_embed,
dup_confirm, captioner, lm_reader, vlm_reader), checks that its folder holds the
files the role needs, loads each ONNX file on the device and lists its inputs and
outputs, checks the names the role reads, loads the tokenizer and encodes a probe
sentence, and reads preprocessor_config.json. A role served by a server (the entry's
"server") is checked there: /v1/models, and one one-token question, which says whether
log-probabilities and the prefilled "Answer:" turn work. --roles checks only the roles
a run will use. The exit status is 2 when a role is missing or has a problem; the report
says which files were expected.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			df := gpuflag.Add(fs, gpuflag.Device)
			asJSON := fs.Bool("json", false, "print the report as JSON")
			threads := fs.Int("threads", 0, "intra-op threads per CPU session (0: one per core)")
			roleList := fs.String("roles", "", "check only these comma-separated `ROLES` (image_text, text_embed, dup_confirm, captioner, lm_reader, vlm_reader, and the optional screen_reader and asr); default all but the optional")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return &usageError{"models check: name one models directory"}
				}
				roles, err := parseRoles(*roleList)
				if err != nil {
					return &usageError{"models check: --roles: " + err.Error()}
				}
				dir := args[0]
				spec := df.Device
				if spec.CUDA {
					if _, note, err := gpu.Select(spec, gpu.Discover(gpu.DiscoverOptions{Getenv: env.getenv})); err != nil {
						return &usageError{err.Error()}
					} else if note != "" {
						fmt.Fprintf(env.stderr, "vidscreen models check: %s\n", note)
					}
				}
				man, err := models.LoadManifest(dir)
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				rep, err := models.CheckRoles(ctx, dir, models.RuntimeOptions{Device: df.Device, Threads: *threads, Log: env.stderr, Getenv: env.getenv}, roles)
				if rep == nil {
					return err
				}
				sroles := roles
				if *roleList == "" {
					sroles = append(slices.Clone(roles), models.OptionalRoles...)
				}
				served := checkServed(ctx, man, sroles, env)
				if *asJSON {
					enc := json.NewEncoder(env.stdout)
					enc.SetIndent("", "  ")
					if werr := enc.Encode(struct {
						*models.CheckReport
						Served []servedCheck `json:"served,omitempty"`
					}{rep, served}); werr != nil {
						return werr
					}
				} else if werr := errors.Join(rep.WriteText(env.stdout), writeServedChecks(env.stdout, served)); werr != nil {
					return werr
				}
				if n := servedProblems(served); n > 0 && err == nil {
					return fmt.Errorf("%w: models check %s: %d served entr%s with a problem (see the report); the first: %s", errBadInput, dir, n, map[bool]string{true: "y", false: "ies"}[n == 1], firstProblem(served))
				}
				if err != nil {
					if ctx.Err() != nil {
						return err
					}
					return fmt.Errorf("%w: %s", errBadInput, rep.Summary(err))
				}
				return nil
			}
		},
	}
}

// parseRoles reads a --roles list; empty means every role.
func parseRoles(s string) ([]models.Role, error) {
	if strings.TrimSpace(s) == "" {
		return models.Roles, nil
	}
	var out []models.Role
	for _, f := range strings.Split(s, ",") {
		r := models.Role(strings.TrimSpace(f))
		if all := append(slices.Clone(models.Roles), models.OptionalRoles...); !slices.Contains(all, r) {
			return nil, fmt.Errorf("unknown role %q (the roles: %v)", r, all)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func modelsDevices() *subcommand {
	return &subcommand{
		name:  "devices",
		usage: "[--json]",
		short: "list the GPUs found (count, names, memory, driver), or why none",
		long: `Devices asks the NVIDIA driver (NVML, else the CUDA driver API), loaded at run
time, for the GPUs this process may use (CUDA_VISIBLE_DEVICES applies) and prints
each one's ordinal as --device names it, its name, total and free memory, and the
driver version. Without a driver it says what was missing; vidscreen then runs on
the CPU.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			asJSON := fs.Bool("json", false, "print the inventory as JSON")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("models devices: unexpected argument %q", args[0])}
				}
				inv := gpu.Discover(gpu.DiscoverOptions{Getenv: env.getenv})
				if inv.Devices == nil {
					inv.Devices = []gpu.Device{} // "devices": [], not null, for a script that iterates it
				}
				if *asJSON {
					enc := json.NewEncoder(env.stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(inv)
				}
				_, err := io.WriteString(env.stdout, inv.String())
				return err
			}
		},
	}
}
