package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// setStagesKey sets key of the run's stages.json (in out) to v, keeping
// the file's other keys, and rewrites it atomically: the audit adds what
// only it knows (served roles, the frame path) beside the stages the run
// wrote. A missing file is started afresh.
func setStagesKey(out, key string, v any) error {
	path := filepath.Join(out, rundir.StagesFile)
	doc := map[string]json.RawMessage{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	doc[key] = b
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
}
