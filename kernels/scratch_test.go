package kernels

import (
	"context"
	"testing"
)

func TestScratchSLQ(t *testing.T) {
	ctx := context.Background()
	n := 2000
	v := embeddingLike(uint64(n), n, 48, 40)
	tx := embeddingLike(uint64(n)+1, n, 32, 60)
	exact, _ := VendiJoint(ctx, v, tx, 1, nil, Options{})
	op, _ := NewJointKernel(v, tx, nil, Options{})
	for _, c := range []SLQConfig{{}, {Deflate: 128}} {
		for seed := uint64(1); seed <= 6; seed++ {
			c.Seed = seed
			est, _ := VendiEstimate(ctx, op, 1, c)
			t.Logf("%+v: H exact %.5f est %.5f diff %+.5f score %.3f%%", c, exact.Entropy, est.Entropy, est.Entropy-exact.Entropy, 100*(est.Score/exact.Score-1))
		}
	}
}
