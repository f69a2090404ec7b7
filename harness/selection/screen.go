package selection

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// openScreen reads the screen of runDir from dir (RUN/screen when empty);
// when the default place holds none, it screens the run with the defaults
// of vidscreen screen and says so, writing nothing into the run: a
// selection reads a run, it never changes one.
func openScreen(runDir, dir, audit string, env run.Env) (*screen.Screen, error) {
	explicit := dir != ""
	if !explicit {
		dir = filepath.Join(runDir, "screen")
	}
	s, err := screen.Read(dir)
	if err == nil {
		return s, staleScreen(s, dir, runDir, audit, env)
	}
	if explicit || !errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
	}
	in, err := screen.Open(runDir)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, screen.ErrOldRun) || errors.Is(err, completion.ErrUnfinished) {
			return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
		}
		return nil, err
	}
	s, err = screen.Compute(in, screen.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
	}
	fmt.Fprintf(env.Stderr, "vidscreen select: %s holds no screen: screening the run with the defaults of vidscreen screen (nothing written; run vidscreen screen %s to keep or configure it)\n", dir, runDir)
	return s, nil
}

// staleScreen refuses a screen of another audit of runDir than the one
// there now (the audit extended or rerun after screening: the release
// would draw from the items screened then). A screen written before
// screens recorded their audit is used with a note.
func staleScreen(s *screen.Screen, dir, runDir, audit string, env run.Env) error {
	switch {
	case s.Audit == "":
		fmt.Fprintf(env.Stderr, "vidscreen select: %s does not record which audit it screened (an older vidscreen wrote it): if the audit in %s changed since, rerun vidscreen screen %s\n", dir, runDir, runDir)
	case s.Audit != audit:
		return fmt.Errorf("%w: %s screened another audit than the one in %s now (the screen read %s, the run is %s: the audit was extended or rerun after screening): rerun vidscreen screen %s", harness.ErrBadInput, dir, runDir, s.Audit, audit, runDir)
	}
	return nil
}
