package cuda

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// nvccPath finds nvcc: $VIDSCREEN_NVCC, then make setup-cuda-dev's folder,
// then PATH; "" when there is none.
func nvccPath() string {
	if p := os.Getenv("VIDSCREEN_NVCC"); p != "" {
		return p
	}
	if p, err := filepath.Abs("../../.cache/cuda-dev/bin/nvcc"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("nvcc")
	return p
}

// maxRegisters keeps every kernel at full occupancy for its 256-thread
// blocks on sm_80 and sm_90 (65,536 registers per SM, 2,048 threads: 32
// per thread at full occupancy, 64 at half, which the GEMM tolerates).
const maxRegisters = 64

// TestPTXIsCurrentAndFits compiles kernels.cu as make ptx does, checks
// that the embedded kernels.ptx is what it gives (so nobody edits the PTX
// or forgets to regenerate it), and that ptxas fits every kernel in
// maxRegisters with no spills on sm_80 and sm_90. It needs nvcc (make
// setup-cuda-dev) and skips without it.
func TestPTXIsCurrentAndFits(t *testing.T) {
	nvcc := nvccPath()
	if nvcc == "" {
		t.Skip("no nvcc (make setup-cuda-dev unpacks one; or set VIDSCREEN_NVCC)")
	}
	host := "g++-11"
	if _, err := exec.LookPath(host); err != nil {
		t.Skip("no g++-11, nvcc 11.8's host compiler (make setup-cuda-dev installs it)")
	}
	out := filepath.Join(t.TempDir(), "kernels.ptx")
	cmd := exec.Command(nvcc, "-ccbin", host, "-ptx", "-arch=compute_80", "-O3", "-o", out, "kernels.cu")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(mustRead(t, "kernels.ptx"))) {
		t.Errorf("kernels.ptx is not what kernels.cu compiles to: run make ptx")
	}
	ptxas := filepath.Join(filepath.Dir(nvcc), "ptxas")
	if _, err := os.Stat(ptxas); err != nil {
		if ptxas, err = exec.LookPath("ptxas"); err != nil {
			t.Fatal("nvcc without ptxas beside it or on PATH")
		}
	}
	entry := regexp.MustCompile(`Compiling entry function '(\w+)' for '(sm_\d+)'`)
	spills := regexp.MustCompile(`(\d+) bytes spill stores, (\d+) bytes spill loads`)
	regs := regexp.MustCompile(`Used (\d+) registers`)
	for _, arch := range []string{"sm_80", "sm_90"} {
		cmd := exec.Command(ptxas, "-v", "-arch="+arch, "-O3", "-o", os.DevNull, out)
		report, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, report)
		}
		seen := map[string]bool{}
		var fn string
		for _, line := range bytes.Split(report, []byte("\n")) {
			if m := entry.FindSubmatch(line); m != nil {
				fn = string(m[1])
				seen[fn] = true
			}
			if m := spills.FindSubmatch(line); m != nil && (string(m[1]) != "0" || string(m[2]) != "0") {
				t.Errorf("%s %s: spills (%s)", arch, fn, line)
			}
			if m := regs.FindSubmatch(line); m != nil {
				n, _ := strconv.Atoi(string(m[1]))
				if n > maxRegisters {
					t.Errorf("%s %s: %d registers, want at most %d", arch, fn, n, maxRegisters)
				}
				t.Logf("%s %s: %d registers", arch, fn, n)
			}
		}
		for _, k := range []string{"sgemm_nt", "row_kth", "extract", "sgemm_nn", "hadamard", "add_f64"} {
			if !seen[k] {
				t.Errorf("%s: ptxas compiled no kernel %s:\n%s", arch, k, report)
			}
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
