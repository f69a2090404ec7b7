package conformance

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A picture is one RGB image given to both implementations.
type picture struct {
	name  string
	frame imageprep.Frame // packed: Stride 0
}

// realVideos returns the paths of the development videos
// (../shared/data/videos), or nil with the reason when they are absent.
func realVideos() ([]string, error) {
	dir, err := shareddata.Lookup("videos")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, pat := range []string{"*.mp4", "*.webm"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		paths = append(paths, m...)
	}
	return paths, nil
}

// decodeUniform decodes n uniformly spaced frames of path at size (the
// zero Size: the display size, as a user's own decoder would hand frames
// to the processor), with the decoder the audit uses.
func decodeUniform(ctx context.Context, t testing.TB, path string, n int, size decode.Size) []imageprep.Frame {
	t.Helper()
	d, err := decode.Open(ctx, path, decode.Options{Threads: 1})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer d.Close()
	times, err := decode.Sample(d.Info(), decode.Clip{}, "uniform:"+strconv.Itoa(n), 0)
	if err != nil {
		t.Fatalf("%s: sample: %v", path, err)
	}
	got, err := d.Frames(ctx, times, size, nil)
	if err != nil {
		t.Fatalf("%s: frames at %v: %v", path, size, err)
	}
	out := make([]imageprep.Frame, len(got))
	for i, f := range got {
		out[i] = imageprep.Frame{Pix: append([]byte(nil), f.RGB...), Width: f.Width, Height: f.Height}
	}
	return out
}

// crop copies the w x h region at (x, y) of f.
func crop(f imageprep.Frame, x, y, w, h int) imageprep.Frame {
	pix := make([]byte, 0, 3*w*h)
	stride := 3 * f.Width
	for r := y; r < y+h; r++ {
		pix = append(pix, f.Pix[r*stride+3*x:r*stride+3*(x+w)]...)
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h}
}

// reshapes cuts a decoded frame into the shapes the processors must
// handle: the whole frame, a portrait and a square centre region, and an
// odd-sized off-centre region.
func reshapes(name string, f imageprep.Frame) []picture {
	w, h := f.Width, f.Height
	out := []picture{{name, f}}
	if pw := h * 9 / 16; pw < w {
		out = append(out, picture{name + " portrait crop", crop(f, (w-pw)/2, 0, pw, h)})
	}
	s := min(w, h)
	out = append(out, picture{name + " square crop", crop(f, (w-s)/2, (h-s)/2, s, s)})
	ow, oh := w*2/5|1, h*3/5|1
	out = append(out, picture{name + " odd crop", crop(f, w/7, h/5, ow, oh)})
	return out
}

// synthetic pictures: the content the resize filters find hardest (hard
// edges, one-pixel detail, noise) and smooth content, at landscape,
// portrait, square, odd and smaller-than-the-crop sizes.
func synthetic() []picture {
	return []picture{
		{"colour bars 1280x720", colourBars(1280, 720)},
		{"colour bars 360x640", colourBars(360, 640)},
		{"gradient 641x359", gradient(641, 359)},
		{"gradient 225x225", gradient(225, 225)},
		{"noise 300x300", noise(300, 300, 1)},
		{"noise 37x53", noise(37, 53, 2)},
		{"checker 720x1280", checker(720, 1280)},
		{"checker 97x61", checker(97, 61)},
	}
}

func newFrame(w, h int, px func(x, y int) (r, g, b byte)) imageprep.Frame {
	pix := make([]byte, 3*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := 3 * (y*w + x)
			pix[i], pix[i+1], pix[i+2] = px(x, y)
		}
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h}
}

// colourBars are SMPTE's seven 75% bars over a strip of blue, black and
// white blocks.
func colourBars(w, h int) imageprep.Frame {
	bars := [7][3]byte{{191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0}, {191, 0, 191}, {191, 0, 0}, {0, 0, 191}}
	low := [4][3]byte{{0, 33, 76}, {255, 255, 255}, {50, 0, 106}, {16, 16, 16}}
	return newFrame(w, h, func(x, y int) (byte, byte, byte) {
		c := bars[x*7/w]
		if y >= h*3/4 {
			c = low[x*4/w]
		}
		return c[0], c[1], c[2]
	})
}

func gradient(w, h int) imageprep.Frame {
	return newFrame(w, h, func(x, y int) (byte, byte, byte) {
		return byte(255 * x / max(1, w-1)), byte(255 * y / max(1, h-1)), byte(255 * (x + y) / max(1, w+h-2))
	})
}

func noise(w, h int, seed uint64) imageprep.Frame {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	return newFrame(w, h, func(x, y int) (byte, byte, byte) {
		v := rng.Uint32()
		return byte(v), byte(v >> 8), byte(v >> 16)
	})
}

func checker(w, h int) imageprep.Frame {
	return newFrame(w, h, func(x, y int) (byte, byte, byte) {
		if (x+y)%2 == 0 {
			return 255, 255, 255
		}
		return 0, 0, 0
	})
}

// encodedVideo writes a short H.264 video of moving synthetic content
// (decode's own encoder, libx264) and returns its path: decoded frames
// that need no development data.
func encodedVideo(t testing.TB, w, h int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synthetic.mp4")
	e, err := decode.CreateH264(path, decode.EncodeOptions{Width: w, Height: h, FPS: 10, CRF: 18})
	if err != nil {
		t.Fatal(err)
	}
	bars, grad := colourBars(w, h), gradient(w, h)
	for k := 0; k < 10; k++ {
		pix := make([]byte, 3*w*h)
		for i := range pix {
			// Bars on the left, the gradient sliding on the right.
			x := (i / 3) % w
			if x < w/2 {
				pix[i] = bars.Pix[i]
			} else {
				pix[i] = grad.Pix[(i+3*7*k)%len(pix)]
			}
		}
		if err := e.WriteRGB(pix); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// decodeTimeout bounds the decodes of one test.
const decodeTimeout = 2 * time.Minute

// zeroSize decodes at the display size.
var zeroSize = decode.Size{}
