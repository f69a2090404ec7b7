package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes an exclusive advisory lock on dir's LockFile, creating dir if
// needed, so that two audits never append to the same records at once. The
// lock dies with the process, so a killed run leaves nothing to clean up.
// A dir that is a file is refused with ErrNotRunDir; one another process
// holds, with an error that says so.
func Lock(dir string) (unlock func(), err error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		// Bad input, not a failure of the run: the user named a file.
		return nil, fmt.Errorf("%w: %s is a file; --out names a directory", ErrNotRunDir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another vidscreen audit", dir)
		}
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	return func() { f.Close() }, nil
}
