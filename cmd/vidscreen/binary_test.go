package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// built is the vidscreen binary the tests that run it as a user would (kill
// it, signal it) share: one cgo build per test process instead of one per
// test.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// binary returns the path of a vidscreen binary built from this package,
// building it on first use.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if built.dir, built.err = os.MkdirTemp("", "vidscreen-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "vidscreen")
		built.out, built.err = exec.Command(goBin, "build", "-buildvcs=false", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}
