package cuda

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBasisLaunchMatchesKernels: basis.go's constants are basis.cu's
// #defines, every kernel the GPU loads is an entry of the embedded
// basis.ptx whose block (__launch_bounds__, .maxntid) is the
// basisThreads a launch gives it, and its shared memory is static and
// within the 48 KiB a launch gets without opting in. It needs no nvcc.
func TestBasisLaunchMatchesKernels(t *testing.T) {
	t.Parallel()
	src, ptx := mustRead(t, "basis.cu"), mustRead(t, "basis.ptx")
	defs := cuDefines(t, src)
	for name, want := range map[string]int{"BASIS_CHUNK": basisChunk, "BASIS_T": basisTile, "BASIS_NN_ROWS": basisNNRows} {
		if defs[name] != want {
			t.Errorf("basis.cu #define %s %d, the Go side %d", name, defs[name], want)
		}
	}
	if basisThreads != basisTile*8 {
		t.Errorf("%d threads a block: the kernels' thread (tx, ty) grid is %d x 8", basisThreads, basisTile)
	}
	for _, name := range basisEntries {
		if !regexp.MustCompile(`__launch_bounds__\(256\) ` + name + `\(`).MatchString(src) {
			t.Errorf("basis.cu: %s is not declared __launch_bounds__(256)", name)
		}
		body := ptxEntry(t, ptx, name)
		if !strings.Contains(body, ".maxntid 256, 1, 1") {
			t.Errorf("basis.ptx: %s has no .maxntid 256, 1, 1", name)
		}
		var shared int
		for _, m := range regexp.MustCompile(`\.shared \.align \d+ \.b8 \w+\[(\d+)\]`).FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[1])
			shared += n
		}
		if name != "basis_reduce" && shared == 0 {
			t.Errorf("basis.ptx: %s declares no shared memory; its stages are staged there", name)
		}
		if shared > 48<<10 {
			t.Errorf("basis.ptx: %s declares %d bytes of shared memory, more than 48 KiB", name, shared)
		}
	}
}
