package gpuprep

import (
	"maps"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/internal/ptxas"
)

// TestPreprocessPTXIsCurrentAndFits does for preprocess.cu what
// kernels/cuda's TestPTXIsCurrentAndFits does for kernels.cu: the embedded
// preprocess.ptx is what make ptx gives, and ptxas fits both kernels in
// 32 registers (full occupancy for their 128-thread blocks) with no
// spills and no local memory on sm_80 and sm_90. It skips without nvcc.
func TestPreprocessPTXIsCurrentAndFits(t *testing.T) {
	const maxPrepRegisters = 32
	use := ptxas.Compile(t, "preprocess.cu", "preprocess.ptx")
	for _, arch := range []string{"sm_80", "sm_90"} {
		for _, fn := range slices.Sorted(maps.Keys(use[arch])) {
			u := use[arch][fn]
			if u.Stack != 0 || u.SpillStores != 0 || u.SpillLoads != 0 {
				t.Errorf("%s %s: local memory or spills (%d bytes stack frame, %d bytes spill stores, %d bytes spill loads)", arch, fn, u.Stack, u.SpillStores, u.SpillLoads)
			}
			if u.Registers > maxPrepRegisters {
				t.Errorf("%s %s: %d registers, want at most %d", arch, fn, u.Registers, maxPrepRegisters)
			}
			t.Logf("%s %s: %d registers", arch, fn, u.Registers)
		}
		for _, k := range []string{"prep_horizontal", "prep_vertical"} {
			if u, ok := use[arch][k]; !ok || u.Registers < 0 {
				t.Errorf("%s: ptxas compiled no kernel %s or gave no register count; it compiled %v", arch, k, slices.Sorted(maps.Keys(use[arch])))
			}
		}
	}
}
