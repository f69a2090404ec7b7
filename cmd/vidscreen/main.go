// Command vidscreen audits video question-answering benchmarks for shortcuts.
//
// Each subcommand lives in its own file and documents itself: run
// "vidscreen help COMMAND" or "vidscreen COMMAND --help".
//
// Exit codes: 0 success, 1 the run failed, 2 bad usage or bad input, 3 (select)
// the red-team gate could not clean the release.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
)

// A command is one subcommand of vidscreen.
type command struct {
	name  string // as typed on the command line
	short string // one line for the command list
	usage string // argument synopsis, after "vidscreen NAME "
	long  string // paragraph(s) printed by --help above the flags
	// groups orders the flags of --help under headings; flags in no group
	// follow under "Other flags".
	groups []flagGroup
	// flags declares the command's flags on fs and returns the function that runs
	// it once fs has parsed the arguments. Returning a usageError (or wrapping
	// errBadInput) makes vidscreen exit with status 2.
	flags func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error
}

// environment is what a command may touch besides its flags: it keeps main free
// of global state, so tests can run commands in-process.
type environment struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// usageError reports a bad command line; it exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// errBadInput marks errors caused by the user's input files (exit status 2).
// Wrap it: fmt.Errorf("%w: items.jsonl:3: field answer: out of range", errBadInput).
var errBadInput = harness.ErrBadInput

// commands lists every subcommand. Each file that defines a command adds its
// constructor here, one line, in alphabetical order.
func commands() []*command {
	cmds := []*command{}
	cmds = append(cmds, newAuditCommand())
	cmds = append(cmds, newCardsCommand())
	cmds = append(cmds, newFramesCommand())
	cmds = append(cmds, newImportCommand())
	cmds = append(cmds, newMergeCommand())
	cmds = append(cmds, newModelsCommand())
	cmds = append(cmds, newNeardupCommand())
	cmds = append(cmds, newProbeCommand())
	cmds = append(cmds, newScreenCommand())
	cmds = append(cmds, newSelectCommand())
	cmds = append(cmds, newVendiCommand())
	cmds = append(cmds, newVersionCommand())
	cmds = append(cmds, newVidomniCommand())
	cmds = append(cmds, newWorldCommand())
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	return cmds
}

// stopGrace is how long a command may take to stop after SIGINT or
// SIGTERM before the process exits anyway. Commands stop at the next
// check of their context (milliseconds); this bounds a call that cannot
// be interrupted (a cgo call into FFmpeg or ONNX Runtime). What a command
// stored is kept either way: run directories are written to survive kill -9.
const stopGrace = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal now ends the process at once
		time.Sleep(stopGrace)
		fmt.Fprintf(os.Stderr, "vidscreen: still stopping %v after the signal; exiting\n", stopGrace)
		os.Exit(1)
	}()
	// FFmpeg's own lines, errors and worse, each naming its video
	// ("ffmpeg: VIDEO: error: ..."); frames and probe set their own level.
	if err := decode.SetLogLevel("error"); err != nil {
		panic(err)
	}
	env := &environment{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	code := run(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, env *environment) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		printTopUsage(env.stdout, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name := args[0]
	if name == "help" {
		if len(args) == 1 {
			printTopUsage(env.stdout, cmds)
			return 0
		}
		name, args = args[1], []string{args[1], "--help"}
	}
	var cmd *command
	for _, c := range cmds {
		if c.name == name {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(env.stderr, "vidscreen: unknown command %q\nRun 'vidscreen help' for the list.\n", name)
		return 2
	}
	fs := flag.NewFlagSet("vidscreen "+cmd.name, flag.ContinueOnError)
	// The flag package would report a bad flag on fs's output and call
	// Usage; vidscreen says it once, on one line, with the closest flag
	// (flagErrorText). --help prints the whole page on stdout, once.
	fs.SetOutput(io.Discard)
	runFn := cmd.flags(fs, env)
	fs.Usage = func() {}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(env.stdout, cmd, fs)
			return 0
		}
		fmt.Fprintf(env.stderr, "vidscreen %s: %s (usage: vidscreen %s --help)\n", cmd.name, flagErrorText(fs, err), cmd.name)
		return 2
	}
	err := runFn(ctx, fs.Args())
	if err == nil {
		return 0
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(env.stderr, "vidscreen %s: interrupted; what was stored is kept\n", cmd.name)
		return 1
	}
	// A command may name its own exit status (select's 3: the gate could
	// not clean the release).
	var se *statusError
	if errors.As(err, &se) {
		fmt.Fprintf(env.stderr, "vidscreen %s: %v\n", cmd.name, err)
		return se.code
	}
	// A library's *harness.UsageError is a flag's fault as a usageError is;
	// its pointer to --help stays on the error's line: one error, one line.
	var ue *usageError
	var he *harness.UsageError
	if errors.As(err, &ue) || errors.As(err, &he) {
		fmt.Fprintf(env.stderr, "vidscreen %s: %v (usage: vidscreen %s --help)\n", cmd.name, err, cmd.name)
		return 2
	}
	fmt.Fprintf(env.stderr, "vidscreen %s: %v\n", cmd.name, err)
	if errors.Is(err, errBadInput) {
		return 2
	}
	return 1
}

// printCommandHelp writes a command's whole help page: synopsis, text, flags.
func printCommandHelp(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\n", usageLines("usage: vidscreen "+cmd.name, cmd.usage))
	if cmd.long != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimSpace(cmd.long))
	}
	printFlags(w, fs, cmd.groups)
}

func printTopUsage(w io.Writer, cmds []*command) {
	fmt.Fprintf(w, "vidscreen audits video question-answering benchmarks for shortcuts.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tvidscreen <command> [flags] [arguments]\n\nThe commands are:\n\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "\t%-10s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "\nUse \"vidscreen help <command>\" for more information about a command.\n")
	fmt.Fprintf(w, "Exit status: 0 success, 1 the run failed, 2 bad usage or bad input, 3 select: the red-team gate could not clean the release.\n")
}
