package decode

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// writeToneVideo encodes seconds of grey frames with, when freq > 0, a
// sine of freq Hz at rate Hz as the audio track.
func writeToneVideo(t testing.TB, path string, seconds float64, freq float64, rate int) {
	t.Helper()
	opt := EncodeOptions{Width: 64, Height: 48, FPS: 10}
	if freq > 0 {
		n := int(seconds * float64(rate))
		opt.Audio, opt.AudioRate = make([]float32, n), rate
		for i := range opt.Audio {
			opt.Audio[i] = float32(0.5 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
		}
	}
	e, err := CreateH264(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	rgb := bytes.Repeat([]byte{128}, 64*48*3)
	for range int(seconds * 10) {
		if err := e.WriteRGB(rgb); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// crossingsFreq estimates the frequency of a sine from its upward zero
// crossings in the middle half of s.
func crossingsFreq(s []float32) float64 {
	lo, hi := len(s)/4, 3*len(s)/4
	n := 0
	for i := lo + 1; i < hi; i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			n++
		}
	}
	return float64(n) / (float64(hi-lo) / AudioRate)
}

func TestDecodeAudio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	cases := []struct {
		name    string
		seconds float64
		freq    float64
		rate    int
	}{
		{"tone at 16 kHz", 2, 440, 16000},
		{"tone at 44.1 kHz resampled", 1.5, 1000, 44100},
		{"tone at 8 kHz upsampled", 1, 300, 8000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".mp4")
			writeToneVideo(t, p, c.seconds, c.freq, c.rate)
			a, err := DecodeAudio(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if a.NoStream || a.Codec != "aac" || a.Rate != c.rate {
				t.Fatalf("got no-stream %v, codec %q, rate %d", a.NoStream, a.Codec, a.Rate)
			}
			if d := a.Seconds() - c.seconds; math.Abs(d) > 0.1 {
				t.Errorf("%.3f s of audio, want %.1f", a.Seconds(), c.seconds)
			}
			if f := crossingsFreq(a.Samples); math.Abs(f-c.freq) > 0.02*c.freq {
				t.Errorf("tone at %.1f Hz, want %.0f", f, c.freq)
			}
		})
	}
	t.Run("no audio stream is a result", func(t *testing.T) {
		p := filepath.Join(dir, "silent.mp4")
		writeToneVideo(t, p, 1, 0, 0)
		a, err := DecodeAudio(ctx, p)
		if err != nil || !a.NoStream || len(a.Samples) != 0 {
			t.Fatalf("got %+v, %v; want NoStream and no error", a, err)
		}
	})
	t.Run("bad files fail with their kind", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.mp4")
		if err := os.WriteFile(bad, []byte("not a video at all, just text"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			path string
			kind Kind
		}{{bad, KindCorrupt}, {filepath.Join(dir, "absent.mp4"), KindMissing}} {
			_, err := DecodeAudio(ctx, c.path)
			var ve *VideoError
			if !errors.As(err, &ve) || ve.Kind != c.kind {
				t.Errorf("%s: got %v, want a %s VideoError", c.path, err, c.kind)
			}
		}
	})
	t.Run("encoding is deterministic", func(t *testing.T) {
		a, b := filepath.Join(dir, "d1.mp4"), filepath.Join(dir, "d2.mp4")
		writeToneVideo(t, a, 1, 700, 16000)
		writeToneVideo(t, b, 1, 700, 16000)
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if !bytes.Equal(x, y) {
			t.Fatal("the same frames and samples gave different bytes")
		}
	})
}

func TestAudioCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	p := filepath.Join(dir, "v.mp4")
	writeToneVideo(t, p, 1, 500, 16000)
	b, _ := os.ReadFile(p)
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	c := AudioCache{Dir: filepath.Join(dir, "cache")}
	first, cached, err := c.Load(ctx, p, digest)
	if err != nil || cached {
		t.Fatalf("first load: cached %v, %v", cached, err)
	}
	again, cached, err := c.Load(ctx, p, digest)
	if err != nil || !cached || len(again.Samples) != len(first.Samples) || again.Codec != "aac" {
		t.Fatalf("second load: cached %v, %d samples (want %d), %v", cached, len(again.Samples), len(first.Samples), err)
	}
	for i := range first.Samples {
		if first.Samples[i] != again.Samples[i] {
			t.Fatalf("sample %d: %v from the cache, %v decoded", i, again.Samples[i], first.Samples[i])
		}
	}
	// A flipped byte is caught by the sidecar: decoded again, not read.
	entry := c.path(digest)
	raw, _ := os.ReadFile(entry)
	raw[len(raw)-1] ^= 0xff
	if err := os.WriteFile(entry, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry + ".sha256"); err != nil {
		t.Fatalf("no sidecar: %v", err)
	}
	fixed, cached, err := c.Load(ctx, p, digest)
	if err != nil || cached || fixed.Samples[len(fixed.Samples)-1] != first.Samples[len(first.Samples)-1] {
		t.Fatalf("damaged entry: cached %v, %v", cached, err)
	}
	// No audio stream is cached as such.
	q := filepath.Join(dir, "silent.mp4")
	writeToneVideo(t, q, 1, 0, 0)
	for k := range 2 {
		a, cached, err := c.Load(ctx, q, "00"+digest[2:])
		if err != nil || !a.NoStream || cached != (k == 1) {
			t.Fatalf("silent load %d: %+v cached %v, %v", k, a, cached, err)
		}
	}
}
