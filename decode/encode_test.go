package decode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// colourFrames draws n frames of w x h: the left half red, the right half
// blue, with a white bar moving one pixel column per frame.
func colourFrames(w, h, n int) [][]byte {
	var out [][]byte
	for k := range n {
		f := make([]byte, w*h*3)
		for r := range h {
			for c := range w {
				p := f[(r*w+c)*3:]
				switch {
				case c >= k && c < k+4:
					p[0], p[1], p[2] = 255, 255, 255
				case c < w/2:
					p[0], p[1], p[2] = 220, 30, 30
				default:
					p[0], p[1], p[2] = 30, 60, 220
				}
			}
		}
		out = append(out, f)
	}
	return out
}

func encodeFile(t *testing.T, path string, opt EncodeOptions, frames [][]byte) {
	t.Helper()
	e, err := CreateH264(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := e.WriteRGB(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestEncodeH264RoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opt := EncodeOptions{Width: 64, Height: 48, FPS: 5, GOP: 10}
	frames := colourFrames(64, 48, 20)
	a, b := filepath.Join(dir, "a.mp4"), filepath.Join(dir, "b.mp4")
	encodeFile(t, a, opt, frames)
	encodeFile(t, b, opt, frames)
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if len(ab) == 0 || !bytes.Equal(ab, bb) {
		t.Fatalf("two encodings of the same frames differ (%d and %d bytes)", len(ab), len(bb))
	}
	info, err := Probe(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if info.Codec != "h264" || info.Width != 64 || info.Height != 48 {
		t.Fatalf("probe: %+v", info)
	}
	if d := info.Duration; d < 3900*time.Millisecond || d > 4100*time.Millisecond {
		t.Fatalf("duration %v, want 4 s (20 frames at 5 fps)", d)
	}
	d, err := Open(context.Background(), a, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.Frames(context.Background(), []time.Duration{100 * time.Millisecond, 3100 * time.Millisecond}, Size{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, f := range got {
		want := frames[f.Index]
		// Sample pixels away from the edges and the bar: colours survive
		// compression within a few levels.
		for _, px := range [][2]int{{10, 40}, {40, 50}} {
			r, c := px[0], px[1]
			if c >= f.Index && c < f.Index+6 {
				continue
			}
			for ch := range 3 {
				g, w := int(f.RGB[(r*64+c)*3+ch]), int(want[(r*64+c)*3+ch])
				if g-w > 24 || w-g > 24 {
					t.Fatalf("frame %d (index %d) pixel %v channel %d: %d, want about %d", k, f.Index, px, ch, g, w)
				}
			}
		}
	}
}

func TestEncodeRejectsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, opt := range map[string]EncodeOptions{
		"odd width":     {Width: 63, Height: 48, FPS: 5},
		"zero height":   {Width: 64, Height: 0, FPS: 5},
		"no frame rate": {Width: 64, Height: 48},
	} {
		if _, err := CreateH264(filepath.Join(dir, "x.mp4"), opt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	e, err := CreateH264(filepath.Join(dir, "y.mp4"), EncodeOptions{Width: 64, Height: 48, FPS: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.WriteRGB(make([]byte, 10)); err == nil {
		t.Fatal("a short frame was accepted")
	}
}
