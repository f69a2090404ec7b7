package cuda

import (
	"fmt"
	"testing"
)

// BenchmarkHostBasisProject times one Gram-Schmidt pass of the device
// basis on Host (Coeffs and Subtract in basis.cu's order, in Go, on 2
// workers) at the last step of a default estimate (m = 512 columns, a
// block of 32), the pass the GPU's kernels or cuBLAS take over; on a GPU
// machine the device check times the same passes in vendi's split.
func BenchmarkHostBasisProject(b *testing.B) {
	for _, n := range []int{2048, 8192, 60000} {
		const ld, r = 512, 32
		q := randomBlock(n, ld, 1)
		w := randomBlock(n, r, 2)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			buf, err := Host{}.NewBasisBuffers(n, ld, r, 2)
			if err != nil {
				b.Fatal(err)
			}
			defer buf.Close()
			for j := 0; j < ld; j += r {
				if err := buf.SetColumns(j, r, q[:n*r]); err != nil {
					b.Fatal(err)
				}
			}
			h := make([]float64, ld*r)
			out := make([]float64, n*r)
			for b.Loop() {
				if err := buf.SetBlock(w, r); err != nil {
					b.Fatal(err)
				}
				if err := buf.Coeffs(ld, h); err != nil {
					b.Fatal(err)
				}
				if err := buf.Subtract(ld); err != nil {
					b.Fatal(err)
				}
				if err := buf.TakeBlock(out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(4*float64(n)*ld*r*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
