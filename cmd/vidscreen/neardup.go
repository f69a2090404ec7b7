package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// A neardupRow is one row of the pairs file.
type neardupRow struct {
	I   int32   `parquet:"i"`
	J   int32   `parquet:"j"`
	Sim float32 `parquet:"sim"`
}

// neardupSummary is what neardup prints.
type neardupSummary struct {
	A       string  `json:"a"`
	B       string  `json:"b,omitempty"`
	RowsA   int     `json:"rows_a"`
	RowsB   int     `json:"rows_b,omitempty"`
	Dim     int     `json:"dim"`
	Tau     float32 `json:"tau"`
	Pairs   int64   `json:"pairs"`
	Out     string  `json:"out"`
	Seconds float64 `json:"seconds"`
	// Pairs scored per second: the all-pairs work, rows_a*(rows_a-1)/2 or
	// rows_a*rows_b, over the join's wall time.
	ScoredPerSecond float64 `json:"pairs_scored_per_second"`
	// Self-joins only: union-find clusters of near-duplicates.
	Clusters        int `json:"clusters,omitempty"`
	ItemsInClusters int `json:"items_in_clusters,omitempty"`
	LargestCluster  int `json:"largest_cluster,omitempty"`
}

func newNeardupCommand() *command {
	return &command{
		name:  "neardup",
		short: "find all pairs of embeddings at or above a cosine threshold",
		usage: "--a A.npy [--b B.npy] [--tau 0.9] --out pairs.parquet",
		long: `Examples:

	vidscreen neardup --a q.npy --out pairs.parquet
	vidscreen neardup --a a.npy --b b.npy --tau 0.95 --out pairs.parquet

Neardup joins the rows of A.npy (n x d, float32 or float16) with each other, or
with the rows of B.npy, and writes every pair whose cosine similarity is at least tau
to a Parquet file with columns i, j and sim (i < j for a self-join; i indexes A and j
indexes B otherwise), sorted by (i, j). The join is exact (decided in float64) and
tiled, so memory stays bounded whatever the number of rows.

It prints a JSON summary: the number of pairs, the time taken and, for a self-join,
the near-duplicate clusters that the pairs form (Video-Index 4.5: BGE question
embeddings, tau 0.90).

Bad input (exit 2): a NaN or an infinity in A or B, named by file and first row (it
would silently remove every pair of its row); a .npy whose header promises more data than
the file holds; --tau that is not a finite number; --out naming A or B. The pairs file is
written through a temporary file and a rename, mode 0644.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			aPath := fs.String("a", "", "embeddings `A.npy`, one item per row")
			bPath := fs.String("b", "", "optional second set `B.npy` to join A with")
			tau := fs.Float64("tau", 0.9, "keep pairs with cosine >= `TAU`")
			out := fs.String("out", "", "write the pairs to `FILE` (Parquet)")
			normalize := fs.Bool("normalize", true, "scale rows to unit length first, so dot products are cosines")
			threads := fs.Int("threads", 0, "use `N` threads (0: all cores); results do not depend on it")
			df := gpuflag.Add(fs, gpuflag.Device|gpuflag.Precision)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected argument %q", args[0])}
				}
				if *aPath == "" || *out == "" {
					return &usageError{"--a and --out are required"}
				}
				if math.IsNaN(*tau) || math.IsInf(*tau, 0) {
					return &usageError{fmt.Sprintf("--tau %v: want a finite cosine (pairs at or above it are kept)", *tau)}
				}
				for _, in := range []string{*aPath, *bPath} {
					if in != "" && sameFile(in, *out) {
						return &usageError{fmt.Sprintf("--out %s names the input %s: writing it would overwrite the input", *out, in)}
					}
				}
				joiner, release, err := joinerFor(df.Device, df.Precision, env)
				if err != nil {
					return err
				}
				defer release()
				a, err := loadEmbeddings(*aPath, *normalize)
				if err != nil {
					return err
				}
				var b *kernels.Matrix
				if *bPath != "" {
					if b, err = loadEmbeddings(*bPath, *normalize); err != nil {
						return err
					}
					if b.Cols != a.Cols {
						return fmt.Errorf("%w: %s has %d columns but %s has %d", errBadInput, *aPath, a.Cols, *bPath, b.Cols)
					}
				}
				sum := neardupSummary{A: *aPath, B: *bPath, RowsA: a.Rows, Dim: a.Cols, Tau: float32(*tau), Out: *out}
				if b != nil {
					sum.RowsB = b.Rows
				}
				start := time.Now()
				var uf *kernels.UnionFind
				if b == nil {
					uf = kernels.NewUnionFind(a.Rows)
				}
				err = writeParquetAtomically(*out, func(f *os.File) error {
					pw := parquet.NewGenericWriter[neardupRow](f, parquet.Compression(&parquet.Zstd))
					rows := make([]neardupRow, 0, 1<<16)
					err := joiner.ThresholdJoin(ctx, a, b, float32(*tau), kernels.Options{Threads: *threads}, func(ps []kernels.Pair) error {
						rows = rows[:0]
						for _, p := range ps {
							rows = append(rows, neardupRow{p.I, p.J, p.Sim})
							if uf != nil {
								uf.Union(int(p.I), int(p.J))
							}
						}
						sum.Pairs += int64(len(ps))
						_, err := pw.Write(rows)
						return err
					})
					if err != nil {
						return err
					}
					return pw.Close()
				})
				if err != nil {
					return err
				}
				sum.Seconds = time.Since(start).Seconds()
				scored := float64(a.Rows) * float64(a.Rows-1) / 2
				if b != nil {
					scored = float64(a.Rows) * float64(b.Rows)
				}
				if sum.Seconds > 0 {
					sum.ScoredPerSecond = scored / sum.Seconds
				}
				if uf != nil {
					labels, sizes := uf.Labels(), uf.Sizes()
					for i, l := range labels {
						if sizes[i] > 1 {
							sum.ItemsInClusters++
							if int(l) == i {
								sum.Clusters++
							}
							sum.LargestCluster = max(sum.LargestCluster, int(sizes[i]))
						}
					}
				}
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
		},
	}
}

// sameFile reports whether a and b name the same file: the same path once
// cleaned, or (when both exist) the same inode through links.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// loadEmbeddings reads a .npy matrix, optionally scaling rows to unit
// length; a file that cannot be read, or that holds a NaN or an infinity
// (which would silently remove every pair of its row), is bad input.
func loadEmbeddings(path string, normalize bool) (*kernels.Matrix, error) {
	if err := checkMatrixShape(path); err != nil {
		return nil, err
	}
	m, err := npy.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %v", errBadInput, err)
		}
		var fe *npy.FormatError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("%w: %v", errBadInput, err)
		}
		return nil, err
	}
	if err := kernels.CheckFinite(m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errBadInput, path, err)
	}
	if normalize {
		kernels.NormalizeRows(m)
	}
	return m, nil
}

// writeParquetAtomically writes path through a temporary file and a
// rename, so a failed or interrupted join leaves no partial file.
func writeParquetAtomically(path string, write func(*os.File) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; outputs are 0644 in every command.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
