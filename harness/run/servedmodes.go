package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// servedModes is what a run knows of its served readers' modes: the file's
// and Options.Served's, merged.
type servedModes struct {
	mu     sync.Mutex
	loaded bool
	known  []metrics.ServedReader // as last written
}

// servedModes returns the served readers of the run with their modes:
// Options.Served's, each role not yet asked this run taking the mode the
// file recorded for the same role and model. It writes the file whenever
// that adds a mode, before the answers of that mode are stored.
func (a *audit) servedModes() ([]metrics.ServedReader, error) {
	if a.opt.Served == nil {
		return nil, nil
	}
	m := &a.served
	m.mu.Lock()
	defer m.mu.Unlock()
	path := filepath.Join(a.opt.Out, rundir.CacheDir, rundir.ServedModesFile)
	if !m.loaded {
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("served modes: %w", err)
		default:
			if err := json.Unmarshal(b, &m.known); err != nil {
				a.cacheDamaged(fmt.Sprintf("%s: %v (recorded again)", path, err))
				m.known = nil
			}
		}
		m.loaded = true
	}
	now := a.opt.Served()
	out := make([]metrics.ServedReader, len(now))
	for k, r := range now {
		out[k] = r
		if r.Mode != "" {
			continue
		}
		for _, old := range m.known {
			if old.Role == r.Role && old.Model == r.Model {
				out[k] = old
			}
		}
	}
	if slices.Equal(out, m.known) || !anyMode(out) {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("served modes: %w", err)
	}
	err := atomicfile.Write(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(out) })
	if err != nil {
		return nil, fmt.Errorf("served modes: %w", err)
	}
	m.known = out
	return out, nil
}

func anyMode(rs []metrics.ServedReader) bool {
	for _, r := range rs {
		if r.Mode != "" {
			return true
		}
	}
	return false
}
