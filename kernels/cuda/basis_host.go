package cuda

import (
	"fmt"
	"math"
	"sync"
)

var _ BasisDevice = Host{}

// BasisMemory implements BasisDevice: Host.BasisBytes, unbounded when 0,
// none when negative.
func (h Host) BasisMemory() (int64, error) {
	switch {
	case h.BasisBytes > 0:
		return h.BasisBytes, nil
	case h.BasisBytes < 0:
		return 0, nil
	}
	return math.MaxInt64, nil
}

// NewBasisBuffers implements BasisDevice: the buffers in host memory and
// the products in basis.cu's summation order (math.FMA is the kernels'
// fma), spread over workers goroutines by chunk of rows, which changes no
// entry's order.
func (Host) NewBasisBuffers(n, cols, block, workers int) (BasisBuffers, error) {
	if err := checkBasisShape(n, cols, block); err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	return &hostBasis{n: n, ld: cols, block: block, workers: max(workers, 1),
		q: make([]float64, n*cols), w: make([]float64, n*block), y: make([]float64, n*block), h: make([]float64, cols*block),
		part: make([]float64, basisChunks(n)*cols*block)}, nil
}

type hostBasis struct {
	n, ld, block, workers int
	r                     int // W's columns
	m                     int // H's rows
	q, w, y, h, part      []float64
}

func (b *hostBasis) SetColumns(m, r int, x []float64) error {
	if m < 0 || r <= 0 || r > b.block || m+r > b.ld || len(x) != b.n*r {
		return fmt.Errorf("host: %d values as columns [%d, %d) of a %d x %d basis", len(x), m, m+r, b.n, b.ld)
	}
	for i := 0; i < b.n; i++ {
		copy(b.q[i*b.ld+m:i*b.ld+m+r], x[i*r:(i+1)*r])
	}
	b.r = 0 // W held the copy
	return nil
}

func (b *hostBasis) SetBlock(w []float64, r int) error {
	if r <= 0 || r > b.block || len(w) != b.n*r {
		return fmt.Errorf("host: block of %d values in %d columns, want %d x 1..%d", len(w), r, b.n, b.block)
	}
	copy(b.w, w)
	b.r, b.m = r, 0
	return nil
}

// spread runs f over tasks [0, tasks) on the basis's workers.
func (b *hostBasis) spread(tasks int, f func(int)) {
	workers := min(b.workers, tasks)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := g; t < tasks; t += workers {
				f(t)
			}
		}()
	}
	wg.Wait()
}

// tn is basis_tn then basis_reduce: out (m x r) = q_m^T w for q n x ld
// and w n x r.
func (b *hostBasis) tn(q []float64, ld, m int, w []float64, r int, out []float64) {
	chunks, e := basisChunks(b.n), m*r
	b.spread(chunks, func(ch int) {
		p := b.part[ch*e : (ch+1)*e]
		clear(p)
		// Each p[i*r+c] is its own fma chain over k in increasing order:
		// the loops run k outermost only to read q and w by rows.
		for k := ch * basisChunk; k < min((ch+1)*basisChunk, b.n); k++ {
			qk, wk := q[k*ld:k*ld+m], w[k*r:(k+1)*r]
			for i, qv := range qk {
				pi := p[i*r : (i+1)*r]
				for c, wv := range wk {
					pi[c] = math.FMA(qv, wv, pi[c])
				}
			}
		}
	})
	copy(out, b.part[:e])
	for ch := 1; ch < chunks; ch++ {
		for j, v := range b.part[ch*e : (ch+1)*e] {
			out[j] += v
		}
	}
}

// nn is basis_nn: w (n x r) = w - q_m h, or q_m h when set, for q n x ld
// and h m x r.
func (b *hostBasis) nn(q []float64, ld, m int, h []float64, r int, w []float64, set bool) {
	b.spread(basisChunks(b.n), func(t int) {
		acc := make([]float64, r)
		for k := t * basisChunk; k < min((t+1)*basisChunk, b.n); k++ {
			clear(acc)
			for i, qv := range q[k*ld : k*ld+m] {
				for c, hv := range h[i*r : (i+1)*r] {
					acc[c] = math.FMA(qv, hv, acc[c])
				}
			}
			wk := w[k*r : (k+1)*r]
			for c, s := range acc {
				if set {
					wk[c] = s
				} else {
					wk[c] -= s
				}
			}
		}
	})
}

// Coeffs is basis_tn then basis_reduce.
func (b *hostBasis) Coeffs(m int, h []float64) error {
	r := b.r
	if r == 0 || m <= 0 || m > b.ld || len(h) != m*r {
		return fmt.Errorf("host: %d coefficients of %d columns off a block of %d (set: %v)", len(h), m, r, r > 0)
	}
	b.tn(b.q, b.ld, m, b.w, r, b.h[:m*r])
	copy(h, b.h[:m*r])
	b.m = m
	return nil
}

// Subtract is basis_nn.
func (b *hostBasis) Subtract(m int) error {
	r := b.r
	if r == 0 || m != b.m {
		return fmt.Errorf("host: subtract %d columns with coefficients of %d (block set: %v)", m, b.m, r > 0)
	}
	b.nn(b.q, b.ld, m, b.h, r, b.w, false)
	return nil
}

// BlockGram is basis_tn and basis_reduce with W for Q.
func (b *hostBasis) BlockGram(g []float64) error {
	r := b.r
	if r == 0 || len(g) != r*r {
		return fmt.Errorf("host: %d values for the Gram matrix of a block of %d columns (set: %v)", len(g), r, r > 0)
	}
	b.m = 0
	b.tn(b.w, r, r, b.w, r, b.h[:r*r])
	copy(g, b.h[:r*r])
	return nil
}

// BlockTimes is basis_nn setting Y = W U.
func (b *hostBasis) BlockTimes(u []float64, k int, y []float64) error {
	r := b.r
	if r == 0 || k <= 0 || k > r || len(u) != r*k || len(y) != b.n*k {
		return fmt.Errorf("host: combine a block of %d columns by %d values into %d of %d columns", r, len(u), len(y), k)
	}
	b.m = 0
	copy(b.h, u)
	b.nn(b.w, r, r, b.h, k, b.y, true)
	copy(y, b.y[:b.n*k])
	return nil
}

func (b *hostBasis) TakeBlock(w []float64) error {
	if b.r == 0 || len(w) != b.n*b.r {
		return fmt.Errorf("host: take %d values of a block of %d x %d", len(w), b.n, b.r)
	}
	copy(w, b.w[:b.n*b.r])
	return nil
}

func (b *hostBasis) Close() error { b.q, b.w, b.y, b.h, b.part = nil, nil, nil, nil, nil; return nil }
