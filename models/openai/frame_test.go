package openai

import (
	"bytes"
	"image/jpeg"
	"strings"
	"testing"
)

// gradient is a w x h RGB frame with a stride of pad extra bytes a row.
func gradient(w, h, pad int) []byte {
	stride := 3*w + pad
	pix := make([]byte, stride*h)
	for y := range h {
		for x := range w {
			p := pix[y*stride+3*x:]
			p[0], p[1], p[2] = byte(x*255/max(1, w-1)), byte(y*255/max(1, h-1)), byte((x+y)%256)
		}
	}
	return pix
}

func TestEncodeFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		w, h, pad    int
		wantW, wantH int
	}{
		{"a 1080p frame shrinks to a long side of 448", 1920, 1080, 0, 448, 252},
		{"a portrait frame shrinks by its height", 720, 1280, 0, 252, 448},
		{"a frame with padded rows", 896, 896, 5, 448, 448},
		{"a small frame is sent as it is", 320, 240, 0, 320, 240},
		{"a frame exactly 448 wide", 448, 100, 0, 448, 100},
		{"a thin frame keeps one row", 4000, 3, 0, 448, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pix := gradient(tt.w, tt.h, tt.pad)
			stride := 3*tt.w + tt.pad
			a, err := EncodeFrame(pix, tt.w, tt.h, stride)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := EncodeFrame(append([]byte(nil), pix...), tt.w, tt.h, stride)
			if !bytes.Equal(a.Data, b.Data) || a.sum() != b.sum() {
				t.Errorf("two encodings of the same frame differ")
			}
			if a.MIME != "image/jpeg" || !strings.HasPrefix(a.DataURL(), "data:image/jpeg;base64,/9j/") {
				t.Errorf("MIME %s, URL %.30s", a.MIME, a.DataURL())
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(a.Data))
			if err != nil || cfg.Width != tt.wantW || cfg.Height != tt.wantH {
				t.Errorf("decoded %dx%d (%v), want %dx%d", cfg.Width, cfg.Height, err, tt.wantW, tt.wantH)
			}
		})
	}
}

// Area averaging is exact: a 2:1 shrink of a frame of 2x2 blocks gives each
// block's mean, rounded half up.
func TestAreaResizeAverages(t *testing.T) {
	t.Parallel()
	const w, h = 8, 4
	pix := make([]byte, 3*w*h)
	for y := range h {
		for x := range w {
			v := byte(10*(x/2) + 40*(y/2) + (x%2)*2 + (y%2)*1) // block mean is base + 1.5
			pix[3*(y*w+x)], pix[3*(y*w+x)+1], pix[3*(y*w+x)+2] = v, 255-v, 7
		}
	}
	dst := newRGBA(4, 2)
	areaResize(dst, pix, w, h, 3*w)
	for by := range 2 {
		for bx := range 4 {
			base := 10*bx + 40*by
			p := dst.Pix[by*dst.Stride+4*bx:]
			// Mean base+1.5 rounds to base+2; 255-(base+1.5) rounds to 254-base.
			if int(p[0]) != base+2 || int(p[1]) != 254-base || p[2] != 7 || p[3] != 255 {
				t.Errorf("block %d,%d: %v, want %d %d 7 255", bx, by, p[:4], base+2, 254-base)
			}
		}
	}
	// Every output pixel's weights sum to the source length.
	for _, c := range [][2]int{{1920, 448}, {1080, 252}, {7, 3}, {3, 3}} {
		for j, taps := range spans(c[0], c[1]) {
			sum := 0
			for _, tp := range taps {
				sum += tp.w
			}
			if sum != c[0] {
				t.Errorf("spans(%d, %d)[%d] weigh %d", c[0], c[1], j, sum)
			}
		}
	}
}

func TestEncodeFrameRefusesShortBuffers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, w, h, stride int
	}{
		{10, 4, 4, 0}, {48, 4, 4, 11}, {48, 0, 4, 0}, {48, 4, -1, 0},
	}
	for _, tt := range tests {
		if _, err := EncodeFrame(make([]byte, tt.n), tt.w, tt.h, tt.stride); err == nil || !strings.Contains(err.Error(), "encode frame") {
			t.Errorf("%+v: err %v", tt, err)
		}
	}
}
