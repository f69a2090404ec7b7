package kernels

import (
	"context"
	"fmt"
	"math"
)

// SGDConfig sets the prequential learners (Video-Index pool level, docs/attackers.md:
// alpha 1e-4, eta 0.03, averaged weights, standardised features divided by
// sqrt(dim), a one-hot of the option count).
type SGDConfig struct {
	Alpha float64 // L2 penalty per step; 0 means 1e-4, negative means none
	Eta   float64 // constant learning rate; 0 means 0.03
	// Average predicts with the running mean of the weights after every
	// step (averaged SGD) instead of the last weights.
	Average bool
	// Standardize centres and scales each feature by the running mean and
	// standard deviation of the earlier rows only, then divides by
	// sqrt(dim) so a row has about unit norm.
	Standardize bool
	// OneHotClasses appends a one-hot of the row's number of valid slots.
	OneHotClasses bool
	// Progress, when set, is called with the number of rows answered since
	// its last call, every few hundred rows, so that a caller's progress
	// bar moves during a long pass (from several goroutines at once under
	// PrequentialLogisticOrders). It does not change the result.
	Progress func(rows int) `json:"-"`
}

// DefaultSGDConfig is the pool-level learner of docs/attackers.md.
func DefaultSGDConfig() SGDConfig {
	return SGDConfig{Alpha: 1e-4, Eta: 0.03, Average: true, Standardize: true, OneHotClasses: true}
}

func (c SGDConfig) alpha() float64 {
	switch {
	case c.Alpha == 0:
		return 1e-4
	case c.Alpha < 0:
		return 0
	}
	return c.Alpha
}

func (c SGDConfig) eta() float64 {
	if c.Eta == 0 {
		return 0.03
	}
	return c.Eta
}

// standardiser keeps the running mean and variance (Welford) of the rows
// seen so far.
type standardiser struct {
	n        float64
	mean, m2 []float64
	invSqrtD float64
	on       bool
}

func newStandardiser(dim int, on bool) *standardiser {
	return &standardiser{mean: make([]float64, dim), m2: make([]float64, dim), invSqrtD: 1 / math.Sqrt(float64(max(dim, 1))), on: on}
}

// apply writes the standardised x into z using the rows seen so far.
func (s *standardiser) apply(x []float32, z []float64) {
	if !s.on {
		for j, v := range x {
			z[j] = float64(v)
		}
		return
	}
	for j, v := range x {
		sd := 1.0
		if s.n >= 2 {
			if vr := s.m2[j] / s.n; vr > 0 {
				sd = math.Sqrt(vr)
			}
		}
		z[j] = (float64(v) - s.mean[j]) / sd * s.invSqrtD
	}
}

func (s *standardiser) add(x []float32) {
	if !s.on {
		return
	}
	s.n++
	for j, v := range x {
		f := float64(v)
		d := f - s.mean[j]
		s.mean[j] += d / s.n
		s.m2[j] += d * (f - s.mean[j])
	}
}

// sgdWeights is a weight matrix (rows x dim) with its running average.
type sgdWeights struct {
	rows, dim int
	w, avg    []float64
	steps     float64
	average   bool
}

func newSGDWeights(rows, dim int, average bool) *sgdWeights {
	w := &sgdWeights{rows: rows, dim: dim, w: make([]float64, rows*dim), average: average}
	if average {
		w.avg = make([]float64, rows*dim)
	}
	return w
}

// predicting returns the weights to predict with.
func (w *sgdWeights) predicting() []float64 {
	if w.average {
		return w.avg
	}
	return w.w
}

// finishStep folds the weights after a step into the running average.
func (w *sgdWeights) finishStep() {
	if !w.average {
		return
	}
	w.steps++
	inv := 1 / w.steps
	for i, v := range w.w {
		w.avg[i] += (v - w.avg[i]) * inv
	}
}

func dotF64(w, z []float64) float64 {
	z = z[:len(w)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += w[i] * z[i]
		s1 += w[i+1] * z[i+1]
		s2 += w[i+2] * z[i+2]
		s3 += w[i+3] * z[i+3]
	}
	for ; i < len(w); i++ {
		s0 += w[i] * z[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// logSoftmax turns logits into log-probabilities in place.
func logSoftmax(l []float64) {
	mx := math.Inf(-1)
	for _, v := range l {
		mx = max(mx, v)
	}
	var s float64
	for _, v := range l {
		s += math.Exp(v - mx)
	}
	lse := mx + math.Log(s)
	for i := range l {
		l[i] -= lse
	}
}

// PrequentialLogistic runs multiclass logistic regression over option slots
// prequentially: rows of x are items in answering order, y[i] the gold slot
// and nClasses[i] the number of valid slots of row i (slots >= nClasses[i]
// are masked). Row i of the returned n x maxClasses matrix holds
// log-probabilities (-Inf on masked slots) from a model that has seen rows
// < i only (features and labels, standardisation statistics included); then
// row i is learned with one SGD step. Each slot has its own weights and an
// unpenalised intercept, so the learner also finds position priors.
func PrequentialLogistic(ctx context.Context, x *Matrix, y []int32, nClasses []int32, maxClasses int, cfg SGDConfig) (*Matrix, error) {
	if err := checkLabels(x.Rows, y, nClasses, maxClasses); err != nil {
		return nil, err
	}
	order := make([]int32, x.Rows)
	for i := range order {
		order[i] = int32(i)
	}
	return prequentialLogistic(ctx, x, y, nClasses, maxClasses, order, cfg)
}

// PrequentialLogisticOrders runs PrequentialLogistic over several orders at
// once, in parallel. orders[o] is a permutation of row indices; row p of
// result o belongs to item orders[o][p].
func PrequentialLogisticOrders(ctx context.Context, x *Matrix, y, nClasses []int32, maxClasses int, orders [][]int32, cfg SGDConfig, opt Options) ([]*Matrix, error) {
	if err := checkLabels(x.Rows, y, nClasses, maxClasses); err != nil {
		return nil, err
	}
	for o, ord := range orders {
		if err := checkPermutation(ord, x.Rows); err != nil {
			return nil, fmt.Errorf("order %d: %w", o, err)
		}
	}
	out := make([]*Matrix, len(orders))
	err := parallelFor(ctx, len(orders), opt.threads(), func(o int) error {
		m, err := prequentialLogistic(ctx, x, y, nClasses, maxClasses, orders[o], cfg)
		out[o] = m
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func checkLabels(n int, y, nClasses []int32, maxClasses int) error {
	if len(y) != n || len(nClasses) != n {
		return fmt.Errorf("prequential logistic: %d rows but %d labels and %d class counts", n, len(y), len(nClasses))
	}
	if maxClasses < 1 {
		return fmt.Errorf("prequential logistic: maxClasses = %d < 1", maxClasses)
	}
	for i := range y {
		if nClasses[i] < 1 || int(nClasses[i]) > maxClasses {
			return fmt.Errorf("prequential logistic: row %d: nClasses %d outside [1, %d]", i, nClasses[i], maxClasses)
		}
		if y[i] < 0 || y[i] >= nClasses[i] {
			return fmt.Errorf("prequential logistic: row %d: label %d outside [0, %d)", i, y[i], nClasses[i])
		}
	}
	return nil
}

func checkPermutation(ord []int32, n int) error {
	if len(ord) != n {
		return fmt.Errorf("has %d entries for %d rows", len(ord), n)
	}
	seen := make([]bool, n)
	for p, i := range ord {
		if i < 0 || int(i) >= n || seen[i] {
			return fmt.Errorf("position %d: row %d repeated or out of range", p, i)
		}
		seen[i] = true
	}
	return nil
}

func prequentialLogistic(ctx context.Context, x *Matrix, y, nClasses []int32, maxClasses int, order []int32, cfg SGDConfig) (*Matrix, error) {
	dim := x.Cols
	feat := dim + 1 // features, then the intercept
	if cfg.OneHotClasses {
		feat += maxClasses + 1
	}
	alpha, eta := cfg.alpha(), cfg.eta()
	st := newStandardiser(dim, cfg.Standardize)
	w := newSGDWeights(maxClasses, feat, cfg.Average)
	out := NewMatrix(len(order), maxClasses)
	z := make([]float64, feat)
	logit := make([]float64, maxClasses)
	negInf := float32(math.Inf(-1))
	for p, item := range order {
		if p%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if p > 0 && cfg.Progress != nil {
				cfg.Progress(256)
			}
		}
		xi := x.Row(int(item))
		c := int(nClasses[item])
		clear(z)
		st.apply(xi, z[:dim])
		z[dim] = 1
		if cfg.OneHotClasses {
			z[dim+1+c] = 1
		}
		wp := w.predicting()
		for k := 0; k < c; k++ {
			logit[k] = dotF64(wp[k*feat:(k+1)*feat], z)
		}
		logSoftmax(logit[:c])
		row := out.Row(p)
		for k := range row {
			row[k] = negInf
			if k < c {
				row[k] = float32(logit[k])
			}
		}
		// Learn the row: gradient of the log loss under the current weights.
		ww := w.w
		for k := 0; k < c; k++ {
			logit[k] = dotF64(ww[k*feat:(k+1)*feat], z)
		}
		logSoftmax(logit[:c])
		decay := 1 - eta*alpha
		gold := int(y[item])
		for k := 0; k < maxClasses; k++ {
			wk := ww[k*feat : (k+1)*feat]
			g := 0.0
			if k < c {
				g = math.Exp(logit[k])
				if k == gold {
					g--
				}
			}
			step := eta * g
			b := wk[dim] // the intercept is not penalised
			for j := range wk {
				wk[j] = wk[j]*decay - step*z[j]
			}
			wk[dim] = b - step
		}
		w.finishStep()
		st.add(xi)
	}
	if n := len(order); n > 0 && cfg.Progress != nil {
		cfg.Progress(n - (n-1)/256*256)
	}
	return out, nil
}
