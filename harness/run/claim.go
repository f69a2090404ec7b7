package run

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// A claim is the run directory held by this process: unlock releases it,
// resumed says that it held an earlier run of the same configuration (or
// one this run extends), extended that this run only adds to it.
type claim struct {
	unlock   func()
	resumed  bool
	extended bool
}

// claimDir is the claim stage: it locks opt.Out and claims it for cfg
// (rundir.Claim), extending a run whose configuration cfg only adds to
// (extendDir), removes the temporary files an interrupted run left and the
// completion record, so that readers refuse the directory until the run
// writes it again, last. A directory holding another configuration's run
// is refused with a *rundir.ConfigMismatchError, and one that is no run
// directory with rundir.ErrNotRunDir; on error nothing stays locked.
func claimDir(opt Options, cfg *rundir.Config) (c claim, err error) {
	unlock, err := rundir.Lock(opt.Out)
	if err != nil {
		return claim{}, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	resumed, err := rundir.Claim(opt.Out, cfg)
	var mismatch *rundir.ConfigMismatchError
	extended := false
	if errors.As(err, &mismatch) && mismatch.Format == "" {
		if extended, err = extendDir(opt.Out, cfg, mismatch); extended {
			resumed = true
			opt.Progress.Note("extending the run: only the new benchmarks and attackers, and the answers that read a changed video model, are computed", "dir", opt.Out)
		} else if err == nil {
			err = mismatch
		}
	}
	if err != nil {
		if errors.Is(err, rundir.ErrNotRunDir) {
			os.Remove(filepath.Join(opt.Out, rundir.LockFile))
		}
		return claim{}, err
	}
	removeTemps(opt.Out)
	removeTemps(filepath.Join(opt.Out, rundir.CacheDir))
	// From here the outputs may change: readers refuse the directory until
	// the record is written again, last.
	if err := completion.Remove(opt.Out); err != nil {
		return claim{}, err
	}
	return claim{unlock: unlock, resumed: resumed, extended: extended}, nil
}

// removeTemps deletes the temporary files an interrupted atomic write left.
func removeTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
