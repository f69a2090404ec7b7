package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// servedModes is what a run knows of its served readers' modes: its
// config.json's (rundir.Config.ServedModes, or an older run's
// rundir.ServedModesFile) and Options.Served's, merged.
type servedModes struct {
	mu     sync.Mutex
	loaded bool
	known  []metrics.ServedReader // as last written
}

// servedModes returns the served readers of the run with their modes:
// Options.Served's, each role not yet asked this run taking the mode the
// run directory recorded for the same role and model. It records them in
// config.json (rundir.Config.ServedModes) whenever that adds a mode, before
// the answers of that mode are stored, so that a resumed run, which asks
// a role nothing, still names the mode of the answers it reads. A run made
// before the modes were kept in config.json has them in its cache's
// rundir.ServedModesFile, which is read when config.json names none.
func (a *audit) servedModes() ([]metrics.ServedReader, error) {
	if a.opt.Served == nil {
		return nil, nil
	}
	m := &a.served
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded {
		m.known = fromConfigModes(a.cfg.ServedModes)
		if len(m.known) == 0 {
			old, err := a.oldServedModes()
			if err != nil {
				return nil, err
			}
			m.known = old
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
	if slices.Equal(out, fromConfigModes(a.cfg.ServedModes)) || !anyMode(out) {
		return out, nil
	}
	a.cfg.ServedModes = toConfigModes(out)
	if err := rundir.WriteConfig(a.opt.Out, &a.cfg); err != nil {
		return nil, fmt.Errorf("served modes: %w", err)
	}
	m.known = out
	return out, nil
}

// oldServedModes reads the modes a run made before they were kept in
// config.json recorded in its cache (nil when it has none; a damaged file
// is reported and recorded again).
func (a *audit) oldServedModes() ([]metrics.ServedReader, error) {
	path := filepath.Join(a.opt.Out, rundir.CacheDir, rundir.ServedModesFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("served modes: %w", err)
	}
	var rs []metrics.ServedReader
	if err := json.Unmarshal(b, &rs); err != nil {
		a.cacheDamaged(fmt.Sprintf("%s: %v (recorded again)", path, err))
		return nil, nil
	}
	return rs, nil
}

// fromConfigModes and toConfigModes convert between config.json's modes
// and the cards' served readers, which hold the same fields.
func fromConfigModes(ms []rundir.ServedMode) []metrics.ServedReader {
	if len(ms) == 0 {
		return nil
	}
	out := make([]metrics.ServedReader, len(ms))
	for k, m := range ms {
		out[k] = metrics.ServedReader(m)
	}
	return out
}

func toConfigModes(rs []metrics.ServedReader) []rundir.ServedMode {
	if len(rs) == 0 {
		return nil
	}
	out := make([]rundir.ServedMode, len(rs))
	for k, r := range rs {
		out[k] = rundir.ServedMode(r)
	}
	return out
}

func anyMode(rs []metrics.ServedReader) bool {
	for _, r := range rs {
		if r.Mode != "" {
			return true
		}
	}
	return false
}
