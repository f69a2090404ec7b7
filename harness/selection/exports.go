package selection

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/release/export"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// exports are a selection's --export-lmms-eval and --export-vlmevalkit,
// made and checked before the release is written, so that a refused export
// leaves nothing written.
type exports struct {
	lmms     *export.TaskDir
	tsvPath  string
	tsvBytes []byte
}

func prepareExports(ctx context.Context, r *release.Release, lmmsDir, tsvPath string) (*exports, error) {
	e := &exports{tsvPath: tsvPath}
	if lmmsDir != "" {
		d, err := export.NewLMMSEval(r, lmmsDir)
		if err != nil {
			if errors.Is(err, export.ErrForeignTasks) {
				return nil, fmt.Errorf("%w: --export-lmms-eval: %v", harness.ErrBadInput, err)
			}
			return nil, fmt.Errorf("--export-lmms-eval: %w", err)
		}
		e.lmms = d
	}
	if tsvPath != "" {
		b, err := export.VLMEvalKitTable(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("--export-vlmevalkit: %w", err)
		}
		e.tsvBytes = b
	}
	return e, nil
}

// write writes the exports, after the release.
func (e *exports) write(ctx context.Context) error {
	if e.lmms != nil {
		if err := e.lmms.Write(ctx); err != nil {
			return fmt.Errorf("--export-lmms-eval: %w", err)
		}
	}
	if e.tsvPath != "" {
		if err := atomicfile.WriteBytes(e.tsvPath, e.tsvBytes); err != nil {
			return fmt.Errorf("--export-vlmevalkit: %w", err)
		}
	}
	return nil
}
