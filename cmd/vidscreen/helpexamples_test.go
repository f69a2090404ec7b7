package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// helpExamples returns the example command lines of a help text: the
// tab-indented "vidscreen NAME ..." lines of its opening Examples block,
// each without its trailing "# comment".
func helpExamples(long string) []string {
	block, ok := strings.CutPrefix(long, "Examples:\n\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "\tvidscreen ") {
			break
		}
		if i := strings.Index(line, "  #"); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// Every command's help opens with one to three examples, and each parses
// with the command's own flags (a subcommand's, for models and vidomni):
// an example cannot name a flag that does not exist.
func TestHelpExamplesParse(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		ex := helpExamples(c.long)
		if len(ex) == 0 || len(ex) > 3 {
			t.Errorf("%s: %d examples at the top of its help, want 1 to 3", c.name, len(ex))
			continue
		}
		for _, e := range ex {
			words := strings.Fields(strings.ReplaceAll(e, "'", ""))
			if words[1] != c.name {
				t.Errorf("%s: example %q runs another command", c.name, e)
				continue
			}
			fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.flags(fs, &environment{stdout: io.Discard, stderr: io.Discard})
			args := words[2:]
			// models and vidomni: the example's subcommand parses its own flags.
			if subs := subcommandsOf(c.name); subs != nil {
				fs = nil
				for _, s := range subs {
					if s.name == words[2] {
						fs = flag.NewFlagSet(c.name+" "+s.name, flag.ContinueOnError)
						fs.SetOutput(io.Discard)
						s.flags(fs, &environment{stdout: io.Discard, stderr: io.Discard})
					}
				}
				if fs == nil {
					t.Errorf("%s: example %q names no subcommand", c.name, e)
					continue
				}
				args = words[3:]
			}
			for {
				if err := fs.Parse(args); err != nil {
					t.Errorf("%s: example %q: %s", c.name, e, flagErrorText(fs, err))
					break
				}
				if fs.NArg() == 0 {
					break
				}
				args = fs.Args()[1:]
			}
		}
		code, out, _ := runCmd(c.name, "--help")
		if code != 0 || !strings.Contains(out, "\n\nExamples:\n\n\tvidscreen "+c.name) {
			t.Errorf("%s --help: exit %d; the page does not open with its examples:\n%.300s", c.name, code, out)
		}
	}
}

// subcommandsOf returns the subcommands of parent, nil for a plain command.
func subcommandsOf(parent string) []*subcommand {
	switch parent {
	case "models":
		return modelsSubcommands()
	case "vidomni":
		return vidomniSubcommands()
	}
	return nil
}
