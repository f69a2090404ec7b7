package vidomni

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// cacheFormat changes whenever what a cache entry holds changes meaning.
const cacheFormat = 1

// A FrameCache keeps the frame embeddings of videos as .npy files (float32,
// frames x dimension, so numpy reads them) in Dir, named by a content key:
// the video's bytes, the sampler, the decode size, the model's files and
// the preprocessing version. A second verification of the same videos, or
// a threshold fitted on them, decodes and embeds nothing again; any input
// changing gives another key, so an entry is never served for features
// computed another way. A damaged entry is computed again.
type FrameCache struct {
	Dir string
	// Model identifies the image_text model: models.RoleName of its folder,
	// the identity the audit gives the same weights.
	Model string
	// Hits and Stored count the entries read and written.
	Hits, Stored int
}

func writeField(w io.Writer, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	w.Write(n[:])
	io.WriteString(w, s)
}

// key is the content key of one video's frame embeddings.
func (c *FrameCache) key(videoPath string, fs *FrameSampler) (string, error) {
	f, err := os.Open(videoPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	vh := sha256.New()
	if _, err := io.Copy(vh, f); err != nil {
		return "", fmt.Errorf("read %s: %w", videoPath, err)
	}
	h := sha256.New()
	writeField(h, fmt.Sprintf("vidscreen-vidomni-frames/%d", cacheFormat))
	writeField(h, hex.EncodeToString(vh.Sum(nil)))
	writeField(h, fs.Sampler.String())
	writeField(h, fs.Size.String())
	writeField(h, c.Model)
	writeField(h, imageprep.Version)
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func (c *FrameCache) path(key string) string { return filepath.Join(c.Dir, "frames-"+key+".npy") }

// load returns the cached embeddings, or nil when there are none usable.
func (c *FrameCache) load(key string) [][]float32 {
	m, err := npy.ReadFile(c.path(key))
	if err != nil || m.Rows == 0 || m.Cols == 0 {
		return nil
	}
	out := make([][]float32, m.Rows)
	for i := range out {
		out[i] = m.Data[i*m.Cols : (i+1)*m.Cols]
	}
	c.Hits++
	return out
}

func (c *FrameCache) store(key string, emb [][]float32) error {
	if len(emb) == 0 {
		return errors.New("no frame embeddings to store")
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	m := kernels.NewMatrix(len(emb), len(emb[0]))
	for i, e := range emb {
		copy(m.Data[i*m.Cols:], e)
	}
	if err := npy.WriteFile(c.path(key), m, npy.Float32); err != nil {
		return err
	}
	c.Stored++
	return nil
}
