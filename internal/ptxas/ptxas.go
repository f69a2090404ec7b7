// Package ptxas checks a CUDA source file against the PTX committed beside
// it, for the tests of the packages that embed PTX (kernels/cuda,
// models/imageprep/gpuprep): Compile compiles the source as make ptx does,
// fails the test unless the committed PTX is what it gives (so nobody edits
// the PTX or forgets to regenerate it), and returns what ptxas -v reports of
// each kernel (registers, stack frame, spills), which each test judges
// against its own limits. It needs nvcc and its host compiler and skips the
// test without them.
package ptxas

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// nvccPath finds nvcc: $VIDSCREEN_NVCC, then make setup-cuda-dev's folder
// (.cache/cuda-dev at the module's root, found from the test's directory),
// then PATH; "" when there is none.
func nvccPath() string {
	if p := os.Getenv("VIDSCREEN_NVCC"); p != "" {
		return p
	}
	if dir, err := os.Getwd(); err == nil {
		for ; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				p := filepath.Join(dir, ".cache", "cuda-dev", "bin", "nvcc")
				if _, err := os.Stat(p); err == nil {
					return p
				}
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	p, _ := exec.LookPath("nvcc")
	return p
}

// Use is what ptxas -v reports of one kernel on one architecture: the
// registers (-1 where ptxas gave no count) and the bytes of stack frame,
// spill stores and spill loads.
type Use struct {
	Registers                      int
	Stack, SpillStores, SpillLoads int
}

var (
	ptxasEntry = regexp.MustCompile(`Compiling entry function '(\w+)' for '(sm_\d+)'`)
	ptxasFrame = regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	ptxasRegs  = regexp.MustCompile(`Used (\d+) registers`)
)

// Compile compiles the CUDA source src (a path from the test's directory)
// as make ptx does, fails t unless the embedded ptx file is what it gives,
// and returns what ptxas -v reports of each kernel on sm_80 and sm_90, by
// architecture and kernel name. It skips t without nvcc (make
// setup-cuda-dev) or its host compiler.
func Compile(t testing.TB, src, ptx string) map[string]map[string]Use {
	t.Helper()
	nvcc := nvccPath()
	if nvcc == "" {
		t.Skip("no nvcc (make setup-cuda-dev unpacks one; or set VIDSCREEN_NVCC)")
	}
	host := "g++-11"
	if _, err := exec.LookPath(host); err != nil {
		t.Skip("no g++-11, nvcc 11.8's host compiler (make setup-cuda-dev installs it)")
	}
	out := filepath.Join(t.TempDir(), ptx)
	cmd := exec.Command(nvcc, "-ccbin", host, "-ptx", "-arch=compute_80", "-O3", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(mustRead(t, ptx))) {
		t.Errorf("%s is not what %s compiles to: run make ptx", ptx, src)
	}
	ptxas := filepath.Join(filepath.Dir(nvcc), "ptxas")
	if _, err := os.Stat(ptxas); err != nil {
		if ptxas, err = exec.LookPath("ptxas"); err != nil {
			t.Fatal("nvcc without ptxas beside it or on PATH")
		}
	}
	use := map[string]map[string]Use{}
	for _, arch := range []string{"sm_80", "sm_90"} {
		cmd := exec.Command(ptxas, "-v", "-arch="+arch, "-O3", "-o", os.DevNull, out)
		report, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, report)
		}
		kernels := map[string]Use{}
		var fn string
		for _, line := range bytes.Split(report, []byte("\n")) {
			if m := ptxasEntry.FindSubmatch(line); m != nil {
				fn = string(m[1])
				kernels[fn] = Use{Registers: -1}
			}
			u := kernels[fn]
			if m := ptxasFrame.FindSubmatch(line); m != nil {
				u.Stack, u.SpillStores, u.SpillLoads = atoi(m[1]), atoi(m[2]), atoi(m[3])
			}
			if m := ptxasRegs.FindSubmatch(line); m != nil {
				u.Registers = atoi(m[1])
			}
			if fn != "" {
				kernels[fn] = u
			}
		}
		use[arch] = kernels
	}
	return use
}

func atoi(b []byte) int {
	n, _ := strconv.Atoi(string(b))
	return n
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
