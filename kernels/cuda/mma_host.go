package cuda

import "math"

// A Go port of kernels.cu's gemmMMA (gemm_tf32_nt, gemm_bf16_nt), block by
// block, warp by warp and lane by lane, with the same staging, conversions
// and fragment indices, so that Host computes what the kernels compute and
// the port's tests check the kernels' indexing: mmaSync below decodes the
// fragments by the PTX ISA's layout for mma.m16n8k8 (TF32) and
// mma.m16n8k16 (BF16), independently of how the kernel gathers them, so
// a gather that does not match the ISA gives wrong products here.

// mmaStage is one pass's shared memory: MMA_BM (A) and MMA_BN (B) rows of
// MMA_KW words, stride MMA_KW + 4 as in the kernel.
type mmaStage struct {
	as [mmaBM][mmaKW + 4]uint32
	bs [mmaBN][mmaKW + 4]uint32
}

// mmaGEMM sets C (rows x cols, leading dimension ldc) = A . B^T, A rows x d
// and B cols x d row major, as gemm_bf16_nt (bf16) or gemm_tf32_nt computes
// it; entries of C outside rows x cols are not written.
func mmaGEMM(bf16 bool, a, b []float32, rows, cols, d int, c []float32, ldc int) {
	words := d
	if bf16 {
		words = (d + 1) / 2
	}
	var st mmaStage
	// acc[warp][lane][n][e]: each thread's four m16n8 accumulators.
	var acc [mmaWarps][32][4][4]float32
	for by := 0; by*mmaBM < rows; by++ {
		for bx := 0; bx*mmaBN < cols; bx++ {
			rowBase, colBase := by*mmaBM, bx*mmaBN
			acc = [mmaWarps][32][4][4]float32{}
			for w0 := 0; w0 < words; w0 += mmaKW {
				for tid := 0; tid < mmaThreads; tid++ {
					for q := 0; q < mmaBM*mmaKW/mmaThreads; q++ {
						idx := tid + mmaThreads*q
						r, w := idx/mmaKW, idx%mmaKW
						st.as[r][w], st.bs[r][w] = 0, 0
						if w0+w < words {
							st.as[r][w] = stageWord(bf16, a, rows, d, rowBase+r, w0+w)
							st.bs[r][w] = stageWord(bf16, b, cols, d, colBase+r, w0+w)
						}
					}
				}
				for warp := 0; warp < mmaWarps; warp++ {
					wr, wc := 16*(warp%4), 32*(warp/4)
					for ks := 0; ks < mmaKW; ks += 8 {
						var fa [32][4]uint32
						for lane := range fa {
							g, t := lane/4, lane%4
							fa[lane] = [4]uint32{st.as[wr+g][ks+t], st.as[wr+g+8][ks+t], st.as[wr+g][ks+t+4], st.as[wr+g+8][ks+t+4]}
						}
						for n := 0; n < 4; n++ {
							var fb [32][2]uint32
							var fc [32][4]float32
							for lane := range fb {
								g, t := lane/4, lane%4
								bn := wc + 8*n + g
								fb[lane] = [2]uint32{st.bs[bn][ks+t], st.bs[bn][ks+t+4]}
								fc[lane] = acc[warp][lane][n]
							}
							mmaSync(bf16, &fa, &fb, &fc)
							for lane := range fc {
								acc[warp][lane][n] = fc[lane]
							}
						}
					}
				}
			}
			for warp := 0; warp < mmaWarps; warp++ {
				wr, wc := 16*(warp%4), 32*(warp/4)
				for lane := 0; lane < 32; lane++ {
					g, t := lane/4, lane%4
					for n := 0; n < 4; n++ {
						for e := 0; e < 4; e++ {
							r := rowBase + wr + g + 8*(e/2)
							col := colBase + wc + 8*n + 2*t + e%2
							if r < rows && col < cols {
								c[r*ldc+col] = acc[warp][lane][n][e]
							}
						}
					}
				}
			}
		}
	}
}

// stageWord is the kernel's stageWord: word w of k of row r (of n rows,
// d columns) of m, converted; zero outside m.
func stageWord(bf16 bool, m []float32, n, d, r, w int) uint32 {
	if r >= n {
		return 0
	}
	row := m[r*d : (r+1)*d]
	if bf16 {
		var lo, hi float32
		if k := 2 * w; k < d {
			lo = row[k]
		}
		if k := 2*w + 1; k < d {
			hi = row[k]
		}
		return packBF16x2(lo, hi)
	}
	if w < d {
		return math.Float32bits(tf32Round(row[w]))
	}
	return 0
}

// packBF16x2 is cvt.rn.bf16x2.f32 d, hi, lo: both rounded to bfloat16,
// lo in the low half.
func packBF16x2(lo, hi float32) uint32 {
	return bf16Bits(hi)<<16 | bf16Bits(lo)
}

// bf16Bits rounds x to bfloat16 (8 exponent bits, 7 mantissa bits) to
// nearest, ties to even, as cvt.rn does, and returns its 16 bits; a value
// that rounds past the largest finite one becomes infinite, and NaN stays
// a (quiet) NaN.
func bf16Bits(x float32) uint32 {
	u := math.Float32bits(x)
	if u&0x7fffffff > 0x7f800000 {
		return (u >> 16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return u >> 16
}

// bf16Round is x rounded to bfloat16, as a float32.
func bf16Round(x float32) float32 { return math.Float32frombits(bf16Bits(x) << 16) }

// mmaSync is one warp's mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// (bf16 false) or m16n8k16.row.col.f32.bf16.bf16.f32: D = A . B + C with
// D in place of C. Fragments by the PTX ISA, lane l, g = l / 4,
// t = l % 4: A's register i holds row g + 8 (i % 2), word t + 4 (i / 2) of
// k; B's register i word t + 4i of k, column g; C's register i row
// g + 8 (i / 2), column 2t + i % 2. A word is one TF32 value, or two BF16
// values, the lower k in the low half. The products of the converted
// inputs are exact in float64 and each D entry is rounded to float32 once
// per mma: float32 accumulation.
func mmaSync(bf16 bool, a *[32][4]uint32, b *[32][2]uint32, c *[32][4]float32) {
	const m, n = 16, 8
	k := 8
	if bf16 {
		k = 16
	}
	var am [m][16]float64
	var bm [16][n]float64
	// put stores word wd of a fragment: one k (TF32) or two (BF16).
	put := func(wd uint32, kw int, set func(k int, v float64)) {
		if bf16 {
			set(2*kw, float64(math.Float32frombits(wd<<16)))
			set(2*kw+1, float64(math.Float32frombits(wd&0xffff0000)))
			return
		}
		set(kw, float64(math.Float32frombits(wd)))
	}
	for l := 0; l < 32; l++ {
		g, t := l/4, l%4
		for i := 0; i < 4; i++ {
			row := g + 8*(i%2)
			put(a[l][i], t+4*(i/2), func(k int, v float64) { am[row][k] = v })
		}
		for i := 0; i < 2; i++ {
			put(b[l][i], t+4*i, func(k int, v float64) { bm[k][g] = v })
		}
	}
	for l := 0; l < 32; l++ {
		g, t := l/4, l%4
		for i := 0; i < 4; i++ {
			row, col := g+8*(i/2), 2*t+i%2
			s := float64(c[l][i])
			for kk := 0; kk < k; kk++ {
				s += am[row][kk] * bm[kk][col]
			}
			c[l][i] = float32(s)
		}
	}
}
