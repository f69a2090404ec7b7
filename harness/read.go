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
// read with a *ParseError; nothing is returned with it.
func ReadFiles(ctx context.Context, paths []string, opt ReadOptions) ([]*Item, error) {
	return readAll(ctx, func(p string) (fs.File, error) { return os.Open(p) }, paths, opt)
}

// ReadFS is ReadFiles over the named files of fsys (an embedded default, for
// one); errors name the files as given.
func ReadFS(ctx context.Context, fsys fs.FS, names []string, opt ReadOptions) ([]*Item, error) {
	return readAll(ctx, fsys.Open, names, opt)
}

func readAll(ctx context.Context, open func(string) (fs.File, error), paths []string, opt ReadOptions) ([]*Item, error) {
	var items []*Item
	first := map[string]string{} // item key -> Source of its first occurrence
	pick := newPicker(opt)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := open(p)
		if err != nil {
			return nil, openError(p, err)
		}
		err = readFile(ctx, f, p, opt, func(it *Item) error {
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
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := pick.check(paths); err != nil {
		return nil, err
	}
	return items, nil
}

func readFile(ctx context.Context, f fs.File, name string, opt ReadOptions, emit func(*Item) error) error {
	var r ItemReader
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("stat items: %w", err)
		}
		ra, ok := f.(io.ReaderAt)
		if !ok {
			b, err := io.ReadAll(f)
			if err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
			ra = bytes.NewReader(b)
		}
		pr, err := NewParquetReader(ra, st.Size(), name)
		if err != nil {
			return err
		}
		pr.VideoRoot = opt.VideoRoot
		r = pr
	} else {
		jr := NewJSONLReader(f, name)
		jr.VideoRoot = opt.VideoRoot
		r = jr
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		it, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := emit(it); err != nil {
			return err
		}
	}
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
