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

// TestPreprocessPTXIsCurrentAndFits does for preprocess.cu what
// TestPTXIsCurrentAndFits does for kernels.cu: the embedded
// preprocess.ptx is what make ptx gives, and ptxas fits both kernels in
// 32 registers (full occupancy for their 128-thread blocks) with no
// spills and no local memory on sm_80 and sm_90. It skips without nvcc.
func TestPreprocessPTXIsCurrentAndFits(t *testing.T) {
	nvcc := nvccPath()
	if nvcc == "" {
		t.Skip("no nvcc (make setup-cuda-dev unpacks one; or set VIDSCREEN_NVCC)")
	}
	if _, err := exec.LookPath("g++-11"); err != nil {
		t.Skip("no g++-11, nvcc 11.8's host compiler (make setup-cuda-dev installs it)")
	}
	out := filepath.Join(t.TempDir(), "preprocess.ptx")
	cmd := exec.Command(nvcc, "-ccbin", "g++-11", "-ptx", "-arch=compute_80", "-O3", "-o", out, "preprocess.cu")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(mustRead(t, "preprocess.ptx"))) {
		t.Errorf("preprocess.ptx is not what preprocess.cu compiles to: run make ptx")
	}
	ptxas := filepath.Join(filepath.Dir(nvcc), "ptxas")
	if _, err := os.Stat(ptxas); err != nil {
		if ptxas, err = exec.LookPath("ptxas"); err != nil {
			t.Fatal("nvcc without ptxas beside it or on PATH")
		}
	}
	const maxPrepRegisters = 32
	entry := regexp.MustCompile(`Compiling entry function '(\w+)' for '(sm_\d+)'`)
	frame := regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	regs := regexp.MustCompile(`Used (\d+) registers`)
	for _, arch := range []string{"sm_80", "sm_90"} {
		cmd := exec.Command(ptxas, "-v", "-arch="+arch, "-O3", "-o", os.DevNull, out)
		report, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, report)
		}
		seen := map[string]int{}
		var fn string
		for _, line := range bytes.Split(report, []byte("\n")) {
			if m := entry.FindSubmatch(line); m != nil {
				fn = string(m[1])
				seen[fn] = -1
			}
			if m := frame.FindSubmatch(line); m != nil && (string(m[1]) != "0" || string(m[2]) != "0" || string(m[3]) != "0") {
				t.Errorf("%s %s: local memory or spills (%s)", arch, fn, bytes.TrimSpace(line))
			}
			if m := regs.FindSubmatch(line); m != nil {
				n, _ := strconv.Atoi(string(m[1]))
				seen[fn] = n
				if n > maxPrepRegisters {
					t.Errorf("%s %s: %d registers, want at most %d", arch, fn, n, maxPrepRegisters)
				}
				t.Logf("%s %s: %d registers", arch, fn, n)
			}
		}
		for _, k := range []string{"prep_horizontal", "prep_vertical"} {
			if n, ok := seen[k]; !ok || n < 0 {
				t.Errorf("%s: ptxas compiled no kernel %s or gave no register count:\n%s", arch, k, report)
			}
		}
	}
}
