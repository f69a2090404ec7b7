package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// An ItemReader returns one item per call and io.EOF after the last.
// JSONLReader and ParquetReader implement it.
type ItemReader interface {
	Read() (*Item, error)
}

// ReadOptions configures ReadFiles.
type ReadOptions struct {
	// VideoRoot is the directory video_path fields are relative to.
	VideoRoot string
	// Benchmarks, when set, keeps only the items of these benchmarks; a
	// name no item has is an error (a typo would otherwise audit nothing).
	Benchmarks []string
	// Limit, when above 0, keeps the first Limit items of each benchmark,
	// in reading order.
	Limit int
}

// ReadFiles reads and validates the items of every file, in command-line
// order and file order within each: the order of the run. A file whose name
// ends in .parquet is read as Parquet, any other as JSON Lines. An id may
// appear once per benchmark across all files. The first bad item stops the
// read with a *ParseError; nothing is returned with it. A directory, a
// file named twice, or a file past MaxFileBytes is a *ParseError too.
//
// Each file is opened once and read once, so pipes, FIFOs and /dev/stdin
// work as inputs. When ctx ends, the read stops (an open still waiting for
// a FIFO's writer included) and ctx's error is returned.
func ReadFiles(ctx context.Context, paths []string, opt ReadOptions) ([]*Item, error) {
	items, _, err := ReadFSDigests(ctx, nil, paths, opt)
	return items, err
}

// ReadFS is ReadFiles over the named files of fsys (an embedded default, for
// one); errors name the files as given.
func ReadFS(ctx context.Context, fsys fs.FS, names []string, opt ReadOptions) ([]*Item, error) {
	items, _, err := ReadFSDigests(ctx, fsys, names, opt)
	return items, err
}

// ReadFSDigests is ReadFS that also returns the Digest of each file's bytes
// as read, in the order of names. A nil fsys means files on disk.
func ReadFSDigests(ctx context.Context, fsys fs.FS, names []string, opt ReadOptions) ([]*Item, []Digest, error) {
	open := func(p string) (fs.File, error) { return os.Open(p) }
	if fsys != nil {
		open = fsys.Open
	}
	return readAll(ctx, open, names, opt)
}

func readAll(ctx context.Context, open func(string) (fs.File, error), paths []string, opt ReadOptions) ([]*Item, []Digest, error) {
	var items []*Item
	var digests []Digest
	first := map[string]string{} // item key -> Source of its first occurrence
	pick := newPicker(opt)
	named := map[string]bool{}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if named[p] {
			return nil, nil, &ParseError{File: p, Err: fieldError(ErrNotAFile, "named twice; name each items file once")}
		}
		named[p] = true
		f, err := openCtx(ctx, open, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, openError(p, err)
		}
		// Closing the file ends a read blocked on a pipe or FIFO.
		stop := context.AfterFunc(ctx, func() { f.Close() })
		d, err := readFile(ctx, f, p, opt, func(it *Item) error {
			if !pick.keep(it) {
				return nil
			}
			if src, dup := first[it.Key()]; dup {
				return &ParseError{File: p, Line: it.line, Row: it.row, Field: "id",
					Err: fieldError(ErrDuplicateID, "%q of benchmark %q was already read at %s", it.ID, it.Benchmark, src)}
			}
			first[it.Key()] = it.Source
			items = append(items, it)
			return nil
		})
		stop()
		f.Close()
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, err
		}
		digests = append(digests, d)
	}
	if err := pick.check(paths); err != nil {
		return nil, nil, err
	}
	return items, digests, nil
}

func readFile(ctx context.Context, f fs.File, name string, opt ReadOptions, emit func(*Item) error) (Digest, error) {
	st, err := f.Stat()
	if err != nil {
		return Digest{}, &ParseError{File: name, Err: err}
	}
	if st.IsDir() {
		return Digest{}, &ParseError{File: name, Err: fieldError(ErrNotAFile, "is a directory; name a JSONL or Parquet file")}
	}
	var r ItemReader
	var dr *digestReader
	var digest Digest
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		ra, size, d, err := parquetSource(ctx, f, st, name)
		if err != nil {
			return Digest{}, err
		}
		if pf, err := parquet.OpenFile(ra, size); err == nil && otherParquetLayout(pf) {
			r, digest = newLayoutParquetReader(pf, name, opt.VideoRoot), d
		} else {
			pr, err := NewParquetReader(ra, size, name)
			if err != nil {
				return Digest{}, err
			}
			pr.VideoRoot = opt.VideoRoot
			r, digest = pr, d
		}
	} else {
		dr = newDigestReader(ctxReader{ctx, f})
		jr := NewJSONLReader(dr, name)
		jr.VideoRoot = opt.VideoRoot
		r = jr
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return Digest{}, err
			}
		}
		it, err := r.Read()
		if err == io.EOF {
			if dr != nil {
				digest = dr.digest(name)
			}
			return digest, nil
		}
		if err != nil {
			return Digest{}, err
		}
		if err := emit(it); err != nil {
			return Digest{}, err
		}
	}
}

// parquetSource gives random access to a Parquet file and its digest. A
// regular file is read in place (hashed in one sequential pass); a pipe or
// device is read into memory once, up to MaxFileBytes.
func parquetSource(ctx context.Context, f fs.File, st fs.FileInfo, name string) (io.ReaderAt, int64, Digest, error) {
	if ra, ok := f.(io.ReaderAt); ok && st.Mode().IsRegular() {
		if st.Size() > MaxFileBytes {
			return nil, 0, Digest{}, &ParseError{File: name, Err: fieldError(ErrTooLarge, "the file holds %d bytes, more than %d (MaxFileBytes)", st.Size(), int64(MaxFileBytes))}
		}
		dr := newDigestReader(ctxReader{ctx, io.NewSectionReader(ra, 0, st.Size())})
		if _, err := io.Copy(io.Discard, dr); err != nil {
			return nil, 0, Digest{}, fmt.Errorf("read %s: %w", name, err)
		}
		return ra, st.Size(), dr.digest(name), nil
	}
	dr := newDigestReader(ctxReader{ctx, f})
	b, err := io.ReadAll(io.LimitReader(dr, MaxFileBytes+1))
	if err != nil {
		return nil, 0, Digest{}, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > MaxFileBytes {
		return nil, 0, Digest{}, &ParseError{File: name, Err: fieldError(ErrTooLarge, "the stream holds more than %d bytes (MaxFileBytes)", int64(MaxFileBytes))}
	}
	return bytes.NewReader(b), int64(len(b)), dr.digest(name), nil
}

// openError reports an input file that cannot be opened as bad input that
// names the file.
func openError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &ParseError{File: name, Err: err}
}

// readRemaining reads items from r until io.EOF; the first error stops it.
func readRemaining(r ItemReader) ([]*Item, error) {
	var items []*Item
	for {
		it, err := r.Read()
		if err == io.EOF {
			return items, nil
		}
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
}
