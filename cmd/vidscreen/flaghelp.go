package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vidscreen/vidscreen/harness/report"
)

// A flagGroup is one heading of a command's help and the flags under it,
// in the order they are printed: a long flag list reads by purpose (input,
// levels, models, output, run control), not alphabetically.
type flagGroup struct {
	title string
	names []string
}

// helpWidth is the width help text is wrapped to: it fits a terminal of 100
// columns and reads the same piped into a file.
const helpWidth = 100

// printFlags writes fs's flags as the README writes them (--items FILE),
// each with its usage wrapped to helpWidth, under the headings of groups;
// flags in no group follow under "Flags" (or "Other flags" when there are
// groups). A group's name that fs does not define is skipped, so a group
// list never prints a flag that does not exist.
func printFlags(w io.Writer, fs *flag.FlagSet, groups []flagGroup) {
	printFlagsWidth(w, fs, groups, helpWidth)
}

// printFlagsWidth is printFlags wrapping to width columns.
func printFlagsWidth(w io.Writer, fs *flag.FlagSet, groups []flagGroup, width int) {
	printed := map[string]bool{}
	for _, g := range groups {
		var fl []*flag.Flag
		for _, n := range g.names {
			if f := fs.Lookup(n); f != nil && !printed[n] {
				fl = append(fl, f)
				printed[n] = true
			}
		}
		if len(fl) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", g.title)
		for _, f := range fl {
			printFlag(w, f, width)
		}
		fmt.Fprintln(w)
	}
	var rest []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !printed[f.Name] {
			rest = append(rest, f)
		}
	})
	if len(rest) == 0 {
		return
	}
	title := "Flags"
	if len(printed) > 0 {
		title = "Other flags"
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, f := range rest {
		printFlag(w, f, width)
	}
}

// printFlag writes one flag: "  --name ARG" on its line, then its usage and
// default indented under it.
func printFlag(w io.Writer, f *flag.Flag, width int) {
	arg, usage := flag.UnquoteUsage(f)
	head := "  --" + f.Name
	if arg != "" {
		head += " " + arg
	}
	if def := defaultText(f); def != "" {
		usage += " (default " + def + ")"
	}
	fmt.Fprintln(w, head)
	for _, line := range report.Wrap(usage, width-6) {
		fmt.Fprintf(w, "      %s\n", line)
	}
}

// defaultText is f's default as help shows it, or "" when it is the zero
// value (as the flag package leaves those out); a string default is quoted,
// as the flag package quotes it.
func defaultText(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf("%q", f.DefValue)
		}
	}
	return f.DefValue
}

// usageLines wraps a synopsis "usage: vidscreen NAME ARGS" to helpWidth,
// continuing under the command's arguments.
func usageLines(head, args string) string {
	indent := strings.Repeat(" ", len([]rune(head))+1)
	lines := report.Wrap(args, helpWidth-len(indent))
	if len(lines) == 0 {
		return head
	}
	return head + " " + strings.Join(lines, "\n"+indent)
}
