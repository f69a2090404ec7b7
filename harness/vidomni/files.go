package vidomni

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// readFile opens path and reads it with read (ReadLabels, ReadCaptions,
// ReadVerdicts). A file that cannot be opened or holds a bad line is bad
// input (harness.ErrBadInput): the user names the files.
func readFile[T any](path string, read func(io.Reader, string) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
	}
	defer f.Close()
	out, err := read(f, path)
	if err != nil {
		var pe *harness.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
		}
		return nil, err
	}
	return out, nil
}

// writeJSONL writes rows to path, one JSON line each, HTML left
// unescaped so that captions read as written. The file appears whole or
// not at all (atomicfile), its directory created if missing, so that an
// interrupted run leaves no half file for score to read.
func writeJSONL[T any](path string, rows []T) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
}
