package decode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/internal/checksum"
)

// AudioCache keeps decoded audio tracks on disk by the content of their
// video (the SHA-256 of its bytes, as the frame caches key a video), so a
// track is decoded once however many runs, items or shards read it. Each
// file has a .sha256 sidecar (internal/checksum): a damaged or half-written
// entry is decoded again, never read.
type AudioCache struct {
	Dir string
}

// audioCacheVersion names the samples' format and the resampling: change it
// when either changes.
const audioCacheVersion = "a16k-1"

// path is the entry of a video whose bytes hash to digest.
func (c AudioCache) path(digest string) string {
	return filepath.Join(c.Dir, "audio-"+digest+"-"+audioCacheVersion+".f32")
}

// Load returns the audio of the video at path whose content hashes to
// digest: from the cache when an intact entry exists, else decoded with
// DecodeAudio and stored. cached says which. A video with no audio stream
// is cached too (an entry of one header, no samples).
func (c AudioCache) Load(ctx context.Context, path, digest string) (a *Audio, cached bool, err error) {
	if digest == "" {
		return nil, false, fmt.Errorf("audio cache: no content digest for %s", path)
	}
	p := c.path(digest)
	if b, err := checksum.ReadFile(p); err == nil {
		if a, err := parseAudioEntry(b); err == nil {
			return a, true, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, checksum.ErrDamaged) {
		return nil, false, fmt.Errorf("audio cache: %w", err)
	}
	if a, err = DecodeAudio(ctx, path); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, false, fmt.Errorf("audio cache: %w", err)
	}
	if err := checksum.Write(p, func(w io.Writer) error { return writeAudioEntry(w, a) }); err != nil {
		return nil, false, fmt.Errorf("audio cache %s: %w", p, err)
	}
	return a, false, nil
}

// An entry is a header (magic "VSA1", flags: 1 = no stream, the stored
// rate, the codec name's length and the name) then little-endian float32
// samples at AudioRate.
func writeAudioEntry(w io.Writer, a *Audio) error {
	var flags uint32
	if a.NoStream {
		flags = 1
	}
	hdr := []byte("VSA1")
	hdr = binary.LittleEndian.AppendUint32(hdr, flags)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(a.Rate))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(a.Codec)))
	hdr = append(hdr, a.Codec...)
	buf := make([]byte, 0, len(hdr)+4*len(a.Samples))
	buf = append(buf, hdr...)
	for _, s := range a.Samples {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(s))
	}
	_, err := w.Write(buf)
	return err
}

func parseAudioEntry(b []byte) (*Audio, error) {
	if len(b) < 16 || string(b[:4]) != "VSA1" {
		return nil, errors.New("not an audio cache entry")
	}
	flags := binary.LittleEndian.Uint32(b[4:])
	a := &Audio{NoStream: flags&1 != 0, Rate: int(binary.LittleEndian.Uint32(b[8:]))}
	n := int(binary.LittleEndian.Uint32(b[12:]))
	b = b[16:]
	if n > len(b) || (len(b)-n)%4 != 0 {
		return nil, errors.New("audio cache entry of a wrong length")
	}
	a.Codec, b = string(b[:n]), b[n:]
	a.Samples = make([]float32, len(b)/4)
	for i := range a.Samples {
		a.Samples[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return a, nil
}
