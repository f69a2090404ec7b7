package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
)

// A Digest identifies the bytes read from one input file, so that a run
// can refuse to resume over changed inputs. It is computed over exactly
// what the reader consumed: an input read from a pipe, a FIFO or
// /dev/stdin is read once and hashed as read, never opened a second time
// (which would block on a FIFO, or see nothing of a pipe).
type Digest struct {
	Name   string // as given
	SHA256 string // hex
	Size   int64  // bytes read
}

// digestReader hashes what passes through it.
type digestReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func newDigestReader(r io.Reader) *digestReader { return &digestReader{r: r, h: sha256.New()} }

func (d *digestReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.h.Write(p[:n])
	d.n += int64(n)
	return n, err
}

func (d *digestReader) digest(name string) Digest {
	return Digest{Name: name, SHA256: hex.EncodeToString(d.h.Sum(nil)), Size: d.n}
}

// ctxReader fails reads once ctx is done, so that a long read (an endless
// stream of blank lines) stops on cancellation between buffer fills.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// openCtx opens name, giving up when ctx ends first: opening a FIFO blocks
// until a writer appears, beyond the reach of any deadline. A file that
// opens after the give-up is closed.
func openCtx(ctx context.Context, open func(string) (fs.File, error), name string) (fs.File, error) {
	type result struct {
		f   fs.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := open(name)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}
