package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/release/export"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// selectExports are select's --export-lmms-eval and --export-vlmevalkit,
// made and checked before the release is written, so that a refused export
// leaves nothing written.
type selectExports struct {
	lmms     *export.TaskDir
	tsvPath  string
	tsvBytes []byte
}

func prepareExports(ctx context.Context, r *release.Release, lmmsDir, tsvPath string) (*selectExports, error) {
	e := &selectExports{tsvPath: tsvPath}
	if lmmsDir != "" {
		d, err := export.NewLMMSEval(r, lmmsDir)
		if err != nil {
			if errors.Is(err, export.ErrForeignTasks) {
				return nil, fmt.Errorf("%w: --export-lmms-eval: %v", errBadInput, err)
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

func (e *selectExports) write(ctx context.Context) error {
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
