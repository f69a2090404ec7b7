package main

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// runCmd runs one vidscreen command line in-process.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &o, stderr: &e, getenv: func(string) string { return "" }}
	code = run(context.Background(), args, env)
	return code, o.String(), e.String()
}

// sharedVideo returns the path of a real video in ../shared/data/videos, or
// skips the test naming the folder it looked in.
func sharedVideo(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, "videos", name)
}

func TestTopLevelUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // in stdout
		wantErr  string // in stderr
	}{
		{"no arguments prints the commands and is a usage error", nil, 2, "The commands are:", ""},
		{"--help prints the commands", []string{"--help"}, 0, "The commands are:", ""},
		{"help prints the commands", []string{"help"}, 0, "The commands are:", ""},
		{"help COMMAND prints the command's page", []string{"help", "probe"}, 0, "usage: vidscreen probe", ""},
		{"an unknown command is a usage error", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"an unknown flag is a usage error naming it and the help", []string{"probe", "--bogus"}, 2, "", "vidscreen probe: unknown flag --bogus (usage: vidscreen probe --help)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
		})
	}
}

// Every command documents itself: its help page names every flag it defines,
// and the top-level list names every command.
func TestEveryCommandDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	_, top, _ := runCmd("help")
	for _, c := range commands() {
		if !strings.Contains(top, c.name) {
			t.Errorf("vidscreen help does not list %s", c.name)
		}
		code, out, errOut := runCmd(c.name, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", c.name, code, errOut)
			continue
		}
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs, &environment{})
		lines := strings.Split(out, "\n")
		fs.VisitAll(func(f *flag.Flag) {
			// Printed once, as the README writes it: "--items FILE".
			n := 0
			for _, l := range lines {
				if l == "  --"+f.Name || strings.HasPrefix(l, "  --"+f.Name+" ") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s --help shows --%s %d times, want once", c.name, f.Name, n)
			}
			if f.Usage == "" {
				t.Errorf("%s: flag --%s has no usage text", c.name, f.Name)
			}
		})
		for _, g := range c.groups {
			for _, name := range g.names {
				if fs.Lookup(name) == nil {
					t.Errorf("%s: help group %q names --%s, which the command does not define", c.name, g.title, name)
				}
			}
		}
		for i, l := range lines {
			if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") {
				t.Errorf("%s --help line %d writes a flag with one dash: %q", c.name, i+1, l)
			}
			if n := len([]rune(strings.ReplaceAll(l, "\t", "        "))); n > helpWidth {
				t.Errorf("%s --help line %d is %d columns, over %d: %q", c.name, i+1, n, helpWidth, l)
			}
		}
	}
}
