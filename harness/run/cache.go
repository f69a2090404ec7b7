package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// An embedCache keeps embedding matrices as .npy files (float32, so numpy
// reads them directly) under the run directory, named by content key: a
// resumed run, or one over the same texts, reads them instead of embedding
// again. Each file has its checksum beside it (internal/checksum): a file
// whose bytes changed after it was written is reported through damaged and
// computed again, never read.
type embedCache struct {
	dir     string
	damaged func(what string) // nil: damaged files are recomputed silently
}

// cache is the embedding cache of a's run directory, which reports damaged
// files to a.cacheDamaged.
func (a *audit) cache() embedCache {
	return embedCache{dir: filepath.Join(a.opt.Out, rundir.CacheDir), damaged: a.cacheDamaged}
}

// cacheDamaged reports a cache file whose bytes disagreed with its
// checksum (what describes it), which is then computed again: a warning
// line now, and a count in run.json (Result.CacheDamaged).
func (a *audit) cacheDamaged(what string) {
	a.damagedMu.Lock()
	defer a.damagedMu.Unlock()
	a.res.CacheDamaged = append(a.res.CacheDamaged, what)
	a.opt.Progress.Note("warning: a cache file changed after it was written; it is computed again", "damage", what)
}

func (c embedCache) path(kind, key string) string {
	return filepath.Join(c.dir, fmt.Sprintf("%s-%s.npy", kind, key))
}

// verify checks the file of kind and key against its checksum: true when
// they agree; false when either is absent (never stored, or a store cut
// short) or they disagree, which is reported.
func (c embedCache) verify(kind, key string) bool {
	err := checksum.Verify(c.path(kind, key))
	if errors.Is(err, checksum.ErrDamaged) && c.damaged != nil {
		c.damaged(err.Error())
	}
	return err == nil
}

// load returns the cached matrix, or nil when there is none (or a damaged
// one, which is then computed again). rows and cols are the expected shape.
func (c embedCache) load(kind, key string, rows, cols int) (*kernels.Matrix, error) {
	b, err := checksum.ReadFile(c.path(kind, key))
	if errors.Is(err, checksum.ErrDamaged) && c.damaged != nil {
		c.damaged(err.Error())
	}
	if err != nil {
		return nil, nil
	}
	m, err := npy.Read(bytes.NewReader(b))
	if err != nil || m.Rows != rows || m.Cols != cols {
		return nil, nil
	}
	return m, nil
}

// open opens the cached matrix for reading by rows, or returns nil when
// there is none, or a damaged one (its checksum disagrees, the wrong shape,
// or shorter than its header says), which is then computed again. The
// whole file is read once to check it.
func (c embedCache) open(kind, key string, rows, cols int) (*npy.RowFile, error) {
	if !c.verify(kind, key) {
		return nil, nil
	}
	r, err := npy.OpenRows(c.path(kind, key))
	if err != nil {
		return nil, nil
	}
	if rr, cc := r.Shape(); rr != rows || cc != cols {
		r.Close()
		return nil, nil
	}
	return r, nil
}

// storeOpen stores m and opens the stored file for reading by rows, so
// that the caller can let m go.
func (c embedCache) storeOpen(kind, key string, m *kernels.Matrix) (*npy.RowFile, error) {
	if err := c.store(kind, key, m); err != nil {
		return nil, err
	}
	return npy.OpenRows(c.path(kind, key))
}

func (c embedCache) store(kind, key string, m *kernels.Matrix) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	return checksum.Write(c.path(kind, key), func(w io.Writer) error { return npy.Write(w, m, "<f4") })
}

// embedChunk is how many texts are embedded per call, so that progress can
// be shown; rows are computed independently, so chunking changes no byte.
const embedChunk = 2048

// embedAll embeds texts in chunks, calling progress after each. A text
// whose embedding is not finite (a NaN or an infinity from the model, which
// would silently poison every similarity of its row) does not fail the run:
// its row is zeroed and its index returned in bad, ascending, so that the
// caller fails the items that text belongs to, with the reason.
func embedAll(ctx context.Context, e interface {
	Dim() int
	Embed(context.Context, []string) (*kernels.Matrix, error)
}, texts []string, progress func(int)) (out *kernels.Matrix, bad []int, err error) {
	out = kernels.NewMatrix(len(texts), e.Dim())
	for lo := 0; lo < len(texts); lo += embedChunk {
		hi := min(lo+embedChunk, len(texts))
		m, err := e.Embed(ctx, texts[lo:hi])
		var nfe *textembed.NonFiniteError
		if errors.As(err, &nfe) && nfe.Embeddings != nil {
			m, err = nfe.Embeddings, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if m.Rows != hi-lo || m.Cols != e.Dim() {
			return nil, nil, fmt.Errorf("embedder returned %dx%d for %d texts of width %d", m.Rows, m.Cols, hi-lo, e.Dim())
		}
		copy(out.Data[lo*out.Cols:], m.Data)
		if nfe != nil {
			for _, r := range nfe.Rows {
				bad = append(bad, lo+r)
			}
		}
		for r := lo; r < hi; r++ {
			if kernels.CheckFiniteVector(out.Row(r)) != nil {
				clear(out.Row(r))
				bad = append(bad, r)
			}
		}
		progress(hi - lo)
	}
	slices.Sort(bad)
	return out, slices.Compact(bad), nil
}
