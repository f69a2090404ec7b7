package embedrows

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// Line is one input line: its text, and the file and line number that
// errors name.
type Line struct {
	Text string
	File string
	No   int
}

func (l Line) String() string { return fmt.Sprintf("%s:%d", l.File, l.No) }

// ReadLines reads path, one input per line (a final line ending is
// optional; "\r\n" endings are accepted). An empty line (or one of spaces
// only) is an error naming the file and the line: silently skipping it
// would shift every later row against the caller's numbering, and
// embedding it would give a row nobody asked for. So is invalid UTF-8, which
// the tokenizers would drop without a word. For a list of images the line
// is a path, relative to the working directory.
func ReadLines(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var out []Line
	for no := 1; sc.Scan(); no++ {
		l := Line{Text: strings.TrimSuffix(sc.Text(), "\r"), File: path, No: no}
		switch {
		case strings.TrimSpace(l.Text) == "":
			return nil, fmt.Errorf("%s: empty line (one input per line; remove it, or write the text it stands for)", l)
		case !utf8.ValidString(l.Text):
			return nil, fmt.Errorf("%s: invalid UTF-8", l)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: line %d is longer than 64 MiB", path, len(out)+1)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no lines", path)
	}
	return out, nil
}
