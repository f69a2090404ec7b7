package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// vendiExactLimit is the largest n solved exactly by default: the kernel
// takes 8 n^2 bytes (800 MB at 10,000) and the eigensolver O(n^3).
const vendiExactLimit = 10000

// vendiSummary is what vendi prints.
type vendiSummary struct {
	A       string  `json:"a"`
	B       string  `json:"b,omitempty"`
	Rows    int     `json:"rows"`
	N       int     `json:"n"` // items scored (the sample, if any)
	Sample  int     `json:"sample,omitempty"`
	Seed    uint64  `json:"seed"`
	Q       string  `json:"q"`
	Score   float64 `json:"score"`
	Entropy float64 `json:"entropy"`
	Method  string  `json:"method"`
	Seconds float64 `json:"seconds"`
}

func newVendiCommand() *command {
	return &command{
		name:  "vendi",
		short: "measure the effective size (Vendi score) of a set of embeddings",
		usage: "--a V.npy [--b T.npy] [--q 1] [--sample 200 --seed S] [--method auto] [--kernel-memory 8] [--device cuda:0]",
		long: `Examples:

	vidscreen vendi --a frames.npy
	vidscreen vendi --a frames.npy --b texts.npy --q 1

Vendi prints, as JSON, the Vendi score of the items whose embeddings are the rows
of V.npy: exp of the entropy of the eigenvalues of K/n, where K holds the items'
cosine similarities (natural log, eigenvalues <= 0 dropped). With --b, K is the joint
kernel K_ij = (v_i . v_j)(t_i . t_j) over the rows of both files (Video-Index 4.5:
SigLIP frame means and BGE questions); the files must have the same number of rows.

--q sets the order: 1 (Shannon, the default), inf, or any other q >= 0. --sample k
scores a seeded draw of k items without replacement (the paper's effective size is the
score of a 200-item draw). Up to 10,000 items the eigenvalues are exact (from the d x d
dual when one file has fewer columns than items); beyond, or with --method slq, a
stochastic Lanczos quadrature estimate that needs only products with K: 16 block
Lanczos steps with 32 probes. The estimate forms K once and holds it in memory when
it fits in --kernel-memory (60,000 items: 7.2 GB), and then is within 0.2% of the
exact score: over 20 seeds on five 3,000-item kernels the largest error was 0.06%
(docs/scale.md). Otherwise every product forms K again, tile by tile, which at
SigLIP x BGE widths costs hours instead of minutes, and the estimate, which then
lacks ||K||_F for its control variate, is within 0.5% (the largest error measured
there was 0.21%). With --device cuda:N (bin/vidscreen-cuda) the estimate's products
run on that GPU: K is formed there by tiles and held in its memory as far as it fits
(all of it at 60,000 items on an H200), the rest formed again per product; the
estimate is the CPU's within 1e-4 for the same control variate, and the GPU's
operator, lacking ||K||_F, takes the 0.5% one. Without a
usable GPU it runs on the CPU after one line on stderr saying why. Large orders
(--q 1e308) are computed scaled by the largest eigenvalue and tend to the q = inf score. A NaN or an
infinity in V or T is bad input (exit 2), named by file and first row; so is a file that
is not a matrix (a 1-D array). --normalize=false takes the rows as they are, which must
then already be of unit length: the score is defined for kernels with K_ii = 1 (Friedman
and Dieng 2023), and a row of another length is bad input, named by file and row.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			aPath := fs.String("a", "", "item embeddings `V.npy`, one item per row")
			bPath := fs.String("b", "", "optional second embeddings `T.npy` for the joint kernel")
			qFlag := fs.String("q", "1", "order `Q` of the entropy: 1, inf or a number >= 0")
			sample := fs.Int("sample", 0, "score a seeded random draw of `K` items (0: all)")
			seed := fs.Uint64("seed", 0, "`SEED` of the draw and of the estimate")
			method := fs.String("method", "auto", "`METHOD`: exact, slq, or auto (exact up to 10,000 items)")
			normalize := fs.Bool("normalize", true, "scale rows to unit length first, so K holds cosines")
			threads := fs.Int("threads", 0, "use `N` threads (0: all cores); results do not depend on it")
			kernelMemory := fs.Float64("kernel-memory", 8, "hold the kernel of an estimate in memory when it fits in `GIB` gibibytes (2 n^2 bytes: 7.2 GB at 60,000 items); beyond, every product forms it again")
			df := gpuflag.Add(fs, gpuflag.Device)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected argument %q", args[0])}
				}
				if *aPath == "" {
					return &usageError{"--a is required"}
				}
				q, err := parseOrder(*qFlag)
				if err != nil {
					return &usageError{err.Error()}
				}
				if *method != "auto" && *method != "exact" && *method != "slq" {
					return &usageError{fmt.Sprintf("--method %q: want auto, exact or slq", *method)}
				}
				if !(*kernelMemory >= 0) {
					return &usageError{fmt.Sprintf("--kernel-memory %v: want a size >= 0", *kernelMemory)}
				}
				if *sample < 0 {
					return &usageError{"--sample must be >= 0"}
				}
				v, err := loadEmbeddings(*aPath, *normalize)
				if err != nil {
					return err
				}
				if !*normalize {
					if err := checkUnitRows(*aPath, v); err != nil {
						return err
					}
				}
				var t *kernels.Matrix
				if *bPath != "" {
					if t, err = loadEmbeddings(*bPath, *normalize); err != nil {
						return err
					}
					if !*normalize {
						if err := checkUnitRows(*bPath, t); err != nil {
							return err
						}
					}
					if t.Rows != v.Rows {
						return fmt.Errorf("%w: %s has %d rows but %s has %d", errBadInput, *aPath, v.Rows, *bPath, t.Rows)
					}
				}
				if v.Rows == 0 {
					return fmt.Errorf("%w: %s has no rows", errBadInput, *aPath)
				}
				sum := vendiSummary{A: *aPath, B: *bPath, Rows: v.Rows, N: v.Rows, Seed: *seed, Q: *qFlag}
				if *sample > 0 {
					if *sample > v.Rows {
						return fmt.Errorf("%w: --sample %d but %s has only %d rows", errBadInput, *sample, *aPath, v.Rows)
					}
					idx := drawRows(v.Rows, *sample, *seed)
					v = pickRows(v, idx)
					if t != nil {
						t = pickRows(t, idx)
					}
					sum.Sample, sum.N = *sample, *sample
				}
				opt := kernels.Options{Threads: *threads}
				start := time.Now()
				var res kernels.Vendi
				useSLQ := *method == "slq" || (*method == "auto" && v.Rows > vendiExactLimit && (t != nil || v.Cols >= v.Rows))
				var dev cuda.GramDevice
				if df.Device.String() != "cpu" {
					if !useSLQ {
						fmt.Fprintf(env.stderr, "vidscreen: --device %s: the exact score is computed on the CPU (the GPU runs the estimate's products: --method slq)\n", df.Device)
					} else {
						var release func()
						if dev, release, err = gpuFor(df.Device, df.Precision, "forming the kernel", env); err != nil {
							return err
						}
						defer release()
					}
				}
				if useSLQ {
					// Held in memory, K costs one formation; otherwise
					// every product of the estimate forms it again.
					var op kernels.SymOperator
					if dev != nil {
						jk, err := cuda.NewJointKernel(ctx, dev, v, t, nil, cuda.JointKernelOptions{Log: env.stderr})
						if err != nil {
							return err
						}
						defer jk.Close()
						op = jk
					} else if float64(kernels.ResidentBytes(v.Rows)) <= *kernelMemory*(1<<30) {
						op, err = kernels.FormJointKernel(ctx, v, t, nil, opt)
					} else {
						op, err = kernels.NewJointKernel(v, t, nil, opt)
					}
					if err != nil {
						return err
					}
					cfg := kernels.SLQConfig{Seed: *seed}
					// K held in memory knows tr(A^2), which makes the
					// estimate's control variate quadratic.
					cfg.SquaredNorm, _ = kernels.SquaredNorm(op)
					res, err = kernels.VendiEstimate(ctx, op, q, cfg)
					if err != nil {
						return err
					}
				} else if res, err = kernels.VendiJoint(ctx, v, t, q, nil, opt); err != nil {
					return err
				}
				if math.IsNaN(res.Entropy) || math.IsInf(res.Entropy, 0) || math.IsInf(res.Score, 0) {
					return fmt.Errorf("the order-%s Vendi score of %s is %v (entropy %v): no finite answer", *qFlag, *aPath, res.Score, res.Entropy)
				}
				sum.Seconds = time.Since(start).Seconds()
				sum.Score, sum.Entropy, sum.Method = res.Score, res.Entropy, res.Method
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
		},
	}
}

// checkMatrixShape refuses a .npy whose header is not two-dimensional: the
// reader takes a 1-D array as one column, which for embeddings would score
// n scalars (every cosine 1 or -1) instead of saying the file is not a
// matrix of rows. An unreadable header is left to npy.ReadFile's error.
func checkMatrixShape(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h, err := npy.ReadHeader(bufio.NewReader(f))
	if err != nil || len(h.Shape) == 2 {
		return nil
	}
	dims := make([]string, len(h.Shape))
	for i, d := range h.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := "(" + strings.Join(dims, ", ") + ")"
	if len(dims) == 1 {
		shape = "(" + dims[0] + ",)"
	}
	return fmt.Errorf("%w: %s: shape %s is not a matrix; want the embeddings one row per item (n x d)", errBadInput, path, shape)
}

// unitTolerance is how far a row's squared length may be from 1 and
// still count as a unit row: float32 rows normalised elsewhere (numpy,
// PyTorch) are off by a few 1e-7.
const unitTolerance = 1e-3

// checkUnitRows says which row of m (read from path) is not of unit
// length. With --normalize=false the kernel is used as the rows give it,
// and the Vendi score (Friedman and Dieng 2023, section 3) needs K_ii = 1:
// rows of length 10 give eigenvalues of K/n summing to 100 and a score of
// exp(-sum l log l) near 0, with no error.
func checkUnitRows(path string, m *kernels.Matrix) error {
	for i := 0; i < m.Rows; i++ {
		var ss float64
		for _, x := range m.Row(i) {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > unitTolerance {
			return fmt.Errorf("%w: %s row %d has length %.6g, not 1: with --normalize=false the rows must already be unit vectors (the Vendi score needs K_ii = 1); drop --normalize=false to scale them", errBadInput, path, i, math.Sqrt(ss))
		}
	}
	return nil
}

func parseOrder(s string) (float64, error) {
	if strings.EqualFold(s, "inf") {
		return math.Inf(1), nil
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q < 0 || math.IsNaN(q) {
		return 0, fmt.Errorf("--q %q: want 1, inf or a number >= 0", s)
	}
	return q, nil
}

// drawRows returns k distinct row indices, ascending, drawn with a PCG
// stream seeded by seed (a partial Fisher-Yates shuffle).
func drawRows(n, k int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0xd1a))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + rng.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	idx := perm[:k]
	slices.Sort(idx)
	return idx
}

func pickRows(m *kernels.Matrix, idx []int) *kernels.Matrix {
	out := kernels.NewMatrix(len(idx), m.Cols)
	for r, i := range idx {
		copy(out.Row(r), m.Row(i))
	}
	return out
}
