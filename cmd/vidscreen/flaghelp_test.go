package main

import (
	"flag"
	"strings"
	"testing"
	"time"
)

func TestPrintFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("items", "", "read items from `FILE`")
	fs.String("log-format", "text", "write `FORMAT`")
	fs.Int("seed", 1, "seed with `N`")
	fs.Bool("quiet", false, "write no progress")
	fs.Duration("timeout", 10*time.Minute, "stop after `DURATION`")
	fs.String("long", "", strings.Repeat("word ", 40))
	tests := []struct {
		name   string
		groups []flagGroup
		want   string
	}{
		{"without groups every flag is under Flags, by name", nil, `Flags:
  --items FILE
      read items from FILE
  --log-format FORMAT
      write FORMAT (default "text")
  --long string
      word word word word word word word word word word word word word word word word word word word
      word word word word word word word word word word word word word word word word word word word
      word word
  --quiet
      write no progress
  --seed N
      seed with N (default 1)
  --timeout DURATION
      stop after DURATION (default 10m0s)
`},
		{"groups come first, in their order, then the rest; an unknown name is skipped", []flagGroup{
			{"Output", []string{"quiet", "log-format"}},
			{"Input", []string{"items", "no-such-flag"}},
			{"Empty", []string{"no-such-flag"}},
		}, `Output:
  --quiet
      write no progress
  --log-format FORMAT
      write FORMAT (default "text")

Input:
  --items FILE
      read items from FILE

Other flags:
  --long string
      word word word word word word word word word word word word word word word word word word word
      word word word word word word word word word word word word word word word word word word word
      word word
  --seed N
      seed with N (default 1)
  --timeout DURATION
      stop after DURATION (default 10m0s)
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printFlags(&b, fs, tt.groups)
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}
