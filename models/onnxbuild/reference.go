package onnxbuild

import "math"

// This file computes, directly in Go and one sequence at a time, the same
// functions the graphs of layers.go compute, so tests can check every output
// of ONNX Runtime against an independent implementation. Arithmetic is in
// float32 with float64 accumulation, so results agree with ONNX Runtime to
// about 1e-5 relative.

// Mat is a row-major matrix: one row per token (or patch).
type Mat struct {
	Rows, Cols int
	V          []float32
}

// NewMat returns a zero rows x cols matrix.
func NewMat(rows, cols int) Mat { return Mat{Rows: rows, Cols: cols, V: make([]float32, rows*cols)} }

// Row returns row i (aliasing m).
func (m Mat) Row(i int) []float32 { return m.V[i*m.Cols : (i+1)*m.Cols] }

func (l Linear) apply(x Mat) Mat {
	y := NewMat(x.Rows, l.Out)
	for r := 0; r < x.Rows; r++ {
		xr := x.Row(r)
		for o := 0; o < l.Out; o++ {
			s := float64(l.B[o])
			for i := 0; i < l.In; i++ {
				s += float64(xr[i]) * float64(l.W[i*l.Out+o])
			}
			y.V[r*l.Out+o] = float32(s)
		}
	}
	return y
}

func (ln LayerNorm) apply(x Mat) Mat {
	y := NewMat(x.Rows, x.Cols)
	for r := 0; r < x.Rows; r++ {
		xr, yr := x.Row(r), y.Row(r)
		var mean, vr float64
		for _, v := range xr {
			mean += float64(v)
		}
		mean /= float64(len(xr))
		for _, v := range xr {
			vr += (float64(v) - mean) * (float64(v) - mean)
		}
		vr /= float64(len(xr))
		inv := 1 / math.Sqrt(vr+float64(ln.Eps))
		for i, v := range xr {
			yr[i] = float32((float64(v)-mean)*inv*float64(ln.Gamma[i]) + float64(ln.Beta[i]))
		}
	}
	return y
}

func add(a, b Mat) Mat {
	y := NewMat(a.Rows, a.Cols)
	for i := range y.V {
		y.V[i] = a.V[i] + b.V[i]
	}
	return y
}

func gelu(x Mat) Mat {
	y := NewMat(x.Rows, x.Cols)
	for i, v := range x.V {
		y.V[i] = float32(0.5 * float64(v) * (1 + math.Erf(float64(v)/math.Sqrt2)))
	}
	return y
}

// attend computes attention of q over kv. visible(i, j) says whether query
// row i may see key row j. It returns the output and the projected keys and
// values (T x D, heads side by side), which a cache stores.
func (a Attention) attend(q, kv Mat, visible func(i, j int) bool, pastK, pastV Mat) (out, keys, values Mat) {
	d := a.Q.In
	dh := d / a.Heads
	Q := a.Q.apply(q)
	keys = concatRows(pastK, a.K.apply(kv))
	values = concatRows(pastV, a.V.apply(kv))
	o := NewMat(q.Rows, d)
	scale := 1 / math.Sqrt(float64(dh))
	scores := make([]float64, keys.Rows)
	for h := 0; h < a.Heads; h++ {
		for i := 0; i < Q.Rows; i++ {
			mx := math.Inf(-1)
			for j := 0; j < keys.Rows; j++ {
				if visible != nil && !visible(i, j) {
					scores[j] = math.Inf(-1)
					continue
				}
				var s float64
				for c := h * dh; c < (h+1)*dh; c++ {
					s += float64(Q.V[i*d+c]) * float64(keys.V[j*d+c])
				}
				scores[j] = s * scale
				mx = math.Max(mx, scores[j])
			}
			var z float64
			for j := range scores {
				scores[j] = math.Exp(scores[j] - mx)
				z += scores[j]
			}
			for c := h * dh; c < (h+1)*dh; c++ {
				var s float64
				for j := range scores {
					s += scores[j] * float64(values.V[j*d+c])
				}
				o.V[i*d+c] = float32(s / z)
			}
		}
	}
	return a.O.apply(o), keys, values
}

func concatRows(a, b Mat) Mat {
	if a.Rows == 0 {
		return b
	}
	y := NewMat(a.Rows+b.Rows, b.Cols)
	copy(y.V, a.V)
	copy(y.V[len(a.V):], b.V)
	return y
}

// layerCache holds one layer's keys and values (T x D, heads side by side).
type layerCache struct{ K, V Mat }

// apply runs one block. visible masks self-attention; enc, when its Rows > 0,
// is attended by the cross-attention. cache, when not nil, holds the past
// keys and values and is updated to the present ones.
func (b Block) apply(x Mat, visible func(i, j int) bool, enc Mat, cache *layerCache) Mat {
	var pk, pv Mat
	if cache != nil {
		pk, pv = cache.K, cache.V
	}
	store := func(k, v Mat) {
		if cache != nil {
			cache.K, cache.V = k, v
		}
	}
	if b.PostLN {
		a, k, v := b.Self.attend(x, x, visible, pk, pv)
		store(k, v)
		x = b.LNSelf.apply(add(x, a))
		if b.Cross != nil {
			c, _, _ := b.Cross.attend(x, enc, nil, Mat{}, Mat{})
			x = b.LNCross.apply(add(x, c))
		}
		return b.LNFF.apply(add(x, b.FF2.apply(gelu(b.FF1.apply(x)))))
	}
	h := b.LNSelf.apply(x)
	a, k, v := b.Self.attend(h, h, visible, pk, pv)
	store(k, v)
	x = add(x, a)
	if b.Cross != nil {
		c, _, _ := b.Cross.attend(b.LNCross.apply(x), enc, nil, Mat{}, Mat{})
		x = add(x, c)
	}
	return add(x, b.FF2.apply(gelu(b.FF1.apply(b.LNFF.apply(x)))))
}

// patches applies a PatchEmbed to one C x H x W image.
func (p PatchEmbed) apply(img []float32) Mat {
	n := p.Image / p.Patch
	y := NewMat(p.Patches(), p.Dim)
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			r := py*n + px
			for o := 0; o < p.Dim; o++ {
				s := float64(p.B[o])
				for c := 0; c < p.Channels; c++ {
					for ky := 0; ky < p.Patch; ky++ {
						for kx := 0; kx < p.Patch; kx++ {
							w := p.W[((o*p.Channels+c)*p.Patch+ky)*p.Patch+kx]
							v := img[(c*p.Image+py*p.Patch+ky)*p.Image+px*p.Patch+kx]
							s += float64(w) * float64(v)
						}
					}
				}
				y.V[r*p.Dim+o] = float32(s) + p.Pos[r*p.Dim+o]
			}
		}
	}
	return y
}

func embedRows(table []float32, dim int, ids []int) Mat {
	y := NewMat(len(ids), dim)
	for i, id := range ids {
		copy(y.Row(i), table[id*dim:(id+1)*dim])
	}
	return y
}

func causal(past int) func(i, j int) bool { return func(i, j int) bool { return j <= past+i } }
