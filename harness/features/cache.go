package features

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/kernels/npy"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// cacheFormat changes whenever what a cache entry holds changes meaning.
// Format 2: each file of an entry has its checksum beside it.
const cacheFormat = 2

// videoKey is the content key of one video's features: its bytes, its plan,
// the models that embed and caption it, the preprocessing and the size the
// frames are decoded at. Any of them changing gives another key, so a cache
// never serves features computed another way.
func videoKey(videoHash string, plan *planSampler, opt *Options) string {
	h := sha256.New()
	var n [8]byte
	write := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	write(fmt.Sprintf("vidscreen-features/%d", cacheFormat))
	write(videoHash)
	write(plan.String())
	write(opt.ImageName)
	write(imageprep.Version)
	write(opt.Size.String())
	if plan.captions() {
		write(opt.CaptionerName)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func (p *planSampler) captions() bool {
	for _, r := range p.reqs {
		if r.set.Captions {
			return true
		}
	}
	return false
}

// entry is the .json half of a cache entry; the .npy half holds the
// embeddings, one row per time.
type entry struct {
	Format   int         `json:"format"`
	Key      string      `json:"key"`
	Path     string      `json:"path"` // where the video was when computed; not part of the key
	Plan     string      `json:"plan"`
	Info     decode.Info `json:"info"`
	Times    []int64     `json:"times_ns"`
	Captions []string    `json:"captions,omitempty"`
}

type cache struct{ dir string }

func (c cache) paths(key string) (npyPath, jsonPath string) {
	base := filepath.Join(c.dir, "video-"+key)
	return base + ".npy", base + ".json"
}

// load returns the stored features of key, or nil when there are none or
// they are torn or foreign (they are then computed again). A file whose
// bytes disagree with its checksum (internal/checksum) is a
// *checksum.DamagedError, which the caller reports and then treats as a
// miss: the entry is computed again and overwritten.
func (c cache) load(key string, dim int) (*Video, error) {
	np, jp := c.paths(key)
	b, err := checksum.ReadFile(jp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e entry
	if json.Unmarshal(b, &e) != nil || e.Format != cacheFormat || e.Key != key {
		return nil, nil
	}
	nb, err := checksum.ReadFile(np)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := npy.Read(bytes.NewReader(nb))
	if err != nil || m.Rows != len(e.Times) || m.Cols != dim || (e.Captions != nil && len(e.Captions) != len(e.Times)) {
		return nil, nil
	}
	v := &Video{Key: key, Info: e.Info, Embeddings: m, Captions: e.Captions, Cached: true}
	for _, t := range e.Times {
		v.Times = append(v.Times, time.Duration(t))
	}
	return v, nil
}

// store writes v's entry: the .npy first, then the .json that makes it
// valid, each atomically and each with its checksum, so a kill at any
// instant leaves either a whole entry or one that load ignores.
func (c cache) store(v *Video, plan string) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("feature cache: %w", err)
	}
	np, jp := c.paths(v.Key)
	// The .json goes first: a kill after the new .npy must not leave an
	// old .json that makes it valid.
	if err := os.Remove(jp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("feature cache: %w", err)
	}
	if err := checksum.Write(np, func(w io.Writer) error { return npy.Write(w, v.Embeddings, npy.Float32) }); err != nil {
		return err
	}
	e := entry{Format: cacheFormat, Key: v.Key, Path: v.Path, Plan: plan, Info: v.Info, Captions: v.Captions}
	for _, t := range v.Times {
		e.Times = append(e.Times, int64(t))
	}
	return checksum.Write(jp, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(&e)
	})
}
