//go:build cuda

package cuda

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCUBLASBindsEverySymbol binds the cuBLAS functions the tiles and
// the basis call (cublasGemmEx's 19 parameters and cublasDgemm_v2
// included) against the toolkit's stub libcublas.so, which has every
// symbol and no GPU code, so a misspelt symbol or a signature purego
// refuses shows up on a machine without a GPU; the stub comes with make
// setup-cuda-dev.
func TestCUBLASBindsEverySymbol(t *testing.T) {
	stub, err := filepath.Abs("../../.cache/cuda-dev/usr/lib/x86_64-linux-gnu/stubs/libcublas.so")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stub); err != nil {
		t.Skipf("no stub cuBLAS (make setup-cuda-dev): %v", err)
	}
	c, err := loadCUBLAS([]string{"libcublas-that-is-not-there.so", stub})
	if err != nil {
		t.Fatal(err)
	}
	if c.path != stub || c.sgemm == nil || c.dgemm == nil || c.gemmEx == nil || c.setMathMode == nil {
		t.Fatalf("loaded %s without every function bound", c.path)
	}
}
