package kernels

import (
	"context"
	"fmt"
	"math"
)

// PrequentialChoice runs a conditional logit (one weight vector shared by
// all candidates) prequentially: the candidates of row i are the rows
// off[i]..off[i+1]-1 of feats and y[i] is the gold candidate's position
// among them. The log-probability of each candidate of row i comes from a
// model that has seen rows < i only (standardisation statistics over their
// candidates included); then row i is learned with one SGD step. It returns
// one log-probability per candidate (len off[n]).
// OneHotClasses is not supported here: put positional features into feats.
func PrequentialChoice(ctx context.Context, feats *Matrix, off []int32, y []int32, cfg SGDConfig) ([]float64, error) {
	n := len(y)
	if len(off) != n+1 {
		return nil, fmt.Errorf("prequential choice: %d labels need %d offsets, got %d", n, n+1, len(off))
	}
	if cfg.OneHotClasses {
		return nil, fmt.Errorf("prequential choice: OneHotClasses is not supported; add the features to feats")
	}
	if off[0] != 0 || int(off[n]) != feats.Rows {
		return nil, fmt.Errorf("prequential choice: offsets span [%d, %d), feats has %d rows", off[0], off[n], feats.Rows)
	}
	for i := 0; i < n; i++ {
		c := off[i+1] - off[i]
		if c < 1 {
			return nil, fmt.Errorf("prequential choice: row %d: %d candidates", i, c)
		}
		if y[i] < 0 || y[i] >= c {
			return nil, fmt.Errorf("prequential choice: row %d: label %d outside [0, %d)", i, y[i], c)
		}
	}
	dim := feats.Cols
	alpha, eta := cfg.alpha(), cfg.eta()
	st := newStandardiser(dim, cfg.Standardize)
	w := newSGDWeights(1, dim, cfg.Average)
	out := make([]float64, feats.Rows)
	var z []float64  // standardised candidates of one row, c x dim
	var lg []float64 // their logits
	for i := 0; i < n; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		lo, hi := int(off[i]), int(off[i+1])
		c := hi - lo
		if cap(z) < c*dim {
			z = make([]float64, c*dim)
		}
		z = z[:c*dim]
		if cap(lg) < c {
			lg = make([]float64, c)
		}
		lg = lg[:c]
		for k := 0; k < c; k++ {
			st.apply(feats.Row(lo+k), z[k*dim:(k+1)*dim])
		}
		wp := w.predicting()
		for k := 0; k < c; k++ {
			lg[k] = dotF64(wp, z[k*dim:(k+1)*dim])
		}
		logSoftmax(lg)
		copy(out[lo:hi], lg)
		for k := 0; k < c; k++ {
			lg[k] = dotF64(w.w, z[k*dim:(k+1)*dim])
		}
		logSoftmax(lg)
		decay := 1 - eta*alpha
		for j := range w.w {
			w.w[j] *= decay
		}
		for k := 0; k < c; k++ {
			g := math.Exp(lg[k])
			if k == int(y[i]) {
				g--
			}
			step := eta * g
			zk := z[k*dim : (k+1)*dim]
			for j := range w.w {
				w.w[j] -= step * zk[j]
			}
		}
		w.finishStep()
		for k := 0; k < c; k++ {
			st.add(feats.Row(lo + k))
		}
	}
	return out, nil
}
