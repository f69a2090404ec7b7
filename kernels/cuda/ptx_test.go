package cuda

import (
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/internal/ptxas"
)

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
	use := ptxas.Compile(t, "kernels.cu", "kernels.ptx")
	for _, arch := range []string{"sm_80", "sm_90"} {
		for _, fn := range slices.Sorted(maps.Keys(use[arch])) {
			u := use[arch][fn]
			if u.SpillStores != 0 || u.SpillLoads != 0 {
				t.Errorf("%s %s: spills (%d bytes stored, %d loaded)", arch, fn, u.SpillStores, u.SpillLoads)
			}
			if u.Registers > maxRegisters {
				t.Errorf("%s %s: %d registers, want at most %d", arch, fn, u.Registers, maxRegisters)
			}
			t.Logf("%s %s: %d registers", arch, fn, u.Registers)
		}
		for _, k := range []string{"sgemm_nt", "gemm_tf32_nt", "gemm_bf16_nt", "row_kth", "extract", "sgemm_nn", "hadamard", "add_f64"} {
			if _, ok := use[arch][k]; !ok {
				t.Errorf("%s: ptxas compiled no kernel %s; it compiled %v", arch, k, slices.Sorted(maps.Keys(use[arch])))
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
