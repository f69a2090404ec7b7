package cuda

import (
	"fmt"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/kernels"
)

// Precision is the arithmetic of a device's tile products. Whatever it
// is, Backend's pairs and neighbours are the CPU kernels': the products
// only shortlist candidates, within twice Bound of the threshold, and the
// host decides each in float64. A coarser precision is faster on tensor
// cores and costs a wider band, so more candidates to re-check.
type Precision int

const (
	// FP32: float32 inputs, float32 accumulation in any order, as cuBLAS's
	// default math mode and the project's own sgemm_nt compute.
	FP32 Precision = iota
	// TF32: inputs rounded to TensorFloat-32 (10 mantissa bits) on tensor
	// cores, float32 accumulation: cuBLAS's TF32 math mode, or gemm_tf32_nt.
	TF32
	// BF16: inputs rounded to bfloat16 (7 mantissa bits) on tensor cores,
	// float32 accumulation: cuBLAS's GemmEx with CUBLAS_COMPUTE_32F_FAST_16BF
	// on the float32 matrices, or gemm_bf16_nt, which converts them while
	// staging tiles in shared memory. Nothing is converted on the host.
	BF16
)

func (p Precision) String() string {
	switch p {
	case TF32:
		return "tf32"
	case BF16:
		return "bf16"
	}
	return "fp32"
}

// ParsePrecision reads "fp32", "tf32" or "bf16" (any case).
func ParsePrecision(s string) (Precision, error) {
	switch strings.ToLower(s) {
	case "fp32":
		return FP32, nil
	case "tf32":
		return TF32, nil
	case "bf16":
		return BF16, nil
	}
	return FP32, fmt.Errorf("precision %q: want fp32, tf32 or bf16", s)
}

// inputRounding is the worst relative error of converting one float32
// input to p: the mantissa's last kept bit (2^-10 for TF32, 2^-7 for
// BF16), which is what truncation loses. Round to nearest loses half
// that, but cuBLAS does not document which rounding its fast modes use,
// so the bound does not count on it.
func (p Precision) inputRounding() float64 {
	switch p {
	case TF32:
		return math.Ldexp(1, -10)
	case BF16:
		return math.Ldexp(1, -7)
	}
	return 0
}

// Bound is the worst-case error of one tile entry of length-d rows,
// relative to ||a_i||*||b_j||. FP32 is gamma_d (kernels.RoundingBound).
// TF32 and BF16 add the rounding of both inputs: each loses at most r of
// itself (inputRounding), so a product is off by at most (2r + r^2) of
// |a_k||b_k|, which sums to (2r + r^2) ||a|| ||b|| (Cauchy-Schwarz); the
// float32 sum of the rounded products adds gamma of their norms, which
// are at most (1+r)^2 larger, and is taken at 2d because the tensor cores'
// accumulation need not round to nearest (truncation doubles the unit
// roundoff). At d = 1024: about 2.2e-3 for TF32, 1.6e-2 for BF16.
func (p Precision) Bound(d int) float64 {
	r := p.inputRounding()
	if r == 0 {
		return kernels.RoundingBound(d)
	}
	return 2*r + r*r + kernels.RoundingBound(2*d)*(1+r)*(1+r)
}
