package cuda

import (
	"maps"
	"slices"
	"testing"
)

// TestPreprocessPTXIsCurrentAndFits does for preprocess.cu what
// TestPTXIsCurrentAndFits does for kernels.cu: the embedded
// preprocess.ptx is what make ptx gives, and ptxas fits both kernels in
// 32 registers (full occupancy for their 128-thread blocks) with no
// spills and no local memory on sm_80 and sm_90. It skips without nvcc.
func TestPreprocessPTXIsCurrentAndFits(t *testing.T) {
	const maxPrepRegisters = 32
	use := compilePTX(t, "preprocess.cu", "preprocess.ptx")
	for _, arch := range []string{"sm_80", "sm_90"} {
		for _, fn := range slices.Sorted(maps.Keys(use[arch])) {
			u := use[arch][fn]
			if u.stack != 0 || u.spillStores != 0 || u.spillLoads != 0 {
				t.Errorf("%s %s: local memory or spills (%d bytes stack frame, %d bytes spill stores, %d bytes spill loads)", arch, fn, u.stack, u.spillStores, u.spillLoads)
			}
			if u.registers > maxPrepRegisters {
				t.Errorf("%s %s: %d registers, want at most %d", arch, fn, u.registers, maxPrepRegisters)
			}
			t.Logf("%s %s: %d registers", arch, fn, u.registers)
		}
		for _, k := range []string{"prep_horizontal", "prep_vertical"} {
			if u, ok := use[arch][k]; !ok || u.registers < 0 {
				t.Errorf("%s: ptxas compiled no kernel %s or gave no register count; it compiled %v", arch, k, slices.Sorted(maps.Keys(use[arch])))
			}
		}
	}
}
