package audio

import (
	"math"
	"math/cmplx"
)

// fftPlan is a mixed-radix Cooley-Tukey transform of one length. Whisper's
// window is 400 samples, not a power of two (400 = 2^4 x 5^2), so the plan
// recurses on the smallest prime factor, with the twiddles of every stage
// precomputed once per plan.
type fftPlan struct {
	n       int
	factors []int
	tw      []complex128 // exp(-2 pi i k / n), k < n
}

func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{n: n, tw: make([]complex128, n)}
	for k := range n {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		p.tw[k] = complex(c, s)
	}
	for m := n; m > 1; {
		f := 2
		for m%f != 0 {
			f++
		}
		p.factors = append(p.factors, f)
		m /= f
	}
	return p
}

// transform writes the DFT of in (length n, read with stride) to out.
func (p *fftPlan) transform(out, in []complex128) {
	p.rec(out, in, p.n, 1, 0)
}

// rec computes the n-point DFT of in[0], in[stride], ... into out[:n];
// level indexes p.factors.
func (p *fftPlan) rec(out, in []complex128, n, stride, level int) {
	if n == 1 {
		out[0] = in[0]
		return
	}
	r := p.factors[level]
	m := n / r
	// Sub-transforms of the r decimated sequences, stored one after another.
	for j := range r {
		p.rec(out[j*m:(j+1)*m], in[j*stride:], m, stride*r, level+1)
	}
	// Butterflies: X[k + q m] = sum_j W_n^{j (k + q m)} Y_j[k].
	tstep := p.n / n // W_n^e = tw[e * tstep]
	var buf [8]complex128
	tmp := buf[:0]
	if r > len(buf) {
		tmp = make([]complex128, 0, r)
	}
	tmp = tmp[:r]
	for k := range m {
		for j := range r {
			tmp[j] = out[j*m+k]
		}
		for q := range r {
			var s complex128
			for j := range r {
				e := (j * (k + q*m)) % n
				s += tmp[j] * p.tw[e*tstep]
			}
			out[q*m+k] = s
		}
	}
}

// naiveDFT is the O(n^2) transform the tests check the plan against.
func naiveDFT(in []complex128) []complex128 {
	n := len(in)
	out := make([]complex128, n)
	for k := range n {
		for t, x := range in {
			out[k] += x * cmplx.Exp(complex(0, -2*math.Pi*float64(k*t%n)/float64(n)))
		}
	}
	return out
}
