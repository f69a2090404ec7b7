package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A subcommand is one of the commands under a command that groups several
// ("vidscreen models check", "vidscreen vidomni score").
type subcommand struct {
	name, usage, short, long string
	groups                   []flagGroup // as a command's
	flags                    func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error
}

// subcommandNames lists the names of subs, "a, b or c".
func subcommandNames(subs []*subcommand) string {
	var names []string
	for _, s := range subs {
		names = append(names, s.name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// dispatch runs the subcommand args[0] of parent with the rest of args.
func dispatch(ctx context.Context, parent string, subs []*subcommand, args []string, env *environment) error {
	if len(args) == 0 {
		return &usageError{"name a subcommand: " + subcommandNames(subs)}
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, parent, args[1:], env)
		}
	}
	return &usageError{fmt.Sprintf("unknown subcommand %q: want %s", args[0], subcommandNames(subs))}
}

// subcommandHelp is the help page of "vidscreen PARENT": intro, then every
// subcommand with its text and flags. "vidscreen PARENT SUB --help" shows
// SUB alone.
func subcommandHelp(parent, intro string, subs []*subcommand) string {
	var b strings.Builder
	b.WriteString(intro)
	for _, s := range subs {
		sep := "\n\n"
		if strings.HasSuffix(b.String(), "\n") {
			sep = "\n"
		}
		fmt.Fprintf(&b, "%s%s\n\n", sep, usageLines("vidscreen "+parent+" "+s.name, s.usage))
		for _, line := range strings.Split(strings.TrimSpace(s.long), "\n") {
			fmt.Fprintf(&b, "\t%s\n", line)
		}
		fs := flag.NewFlagSet(s.name, flag.ContinueOnError)
		s.flags(fs, &environment{})
		var flags strings.Builder
		printFlagsWidth(&flags, fs, s.groups, helpWidth-8) // indented by a tab
		b.WriteString("\n")
		for _, line := range strings.Split(strings.TrimRight(flags.String(), "\n"), "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			fmt.Fprintf(&b, "\t%s\n", line)
		}
	}
	fmt.Fprintf(&b, "\nThe flags above belong to their subcommand; \"vidscreen %s\" has none of its own.", parent)
	return b.String()
}

// run parses the subcommand's flags, which may come before or after its
// arguments, and runs it. --help prints its page on stdout.
func (s *subcommand) run(ctx context.Context, parent string, args []string, env *environment) error {
	fs := flag.NewFlagSet("vidscreen "+parent+" "+s.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runFn := s.flags(fs, env)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(env.stdout, "%s\n\n%s\n\n", usageLines("usage: vidscreen "+parent+" "+s.name, s.usage), strings.TrimSpace(s.long))
				printFlags(env.stdout, fs, s.groups)
				return nil
			}
			return &usageError{fmt.Sprintf("%s: %s", s.name, flagErrorText(fs, err))}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos, args = append(pos, args[0]), args[1:]
	}
	return runFn(ctx, pos)
}
