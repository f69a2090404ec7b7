package decode

import (
	"bytes"
	"context"
	"math"
	"math/big"
	"runtime"
	"testing"
)

func TestSizeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec         string
		w, h         int
		wantW, wantH int
	}{
		{"224", 1920, 1080, 398, 224},
		{"short:224", 1080, 1920, 224, 398},
		{"max:448", 1920, 1080, 448, 252},
		{"max:4096", 640, 360, 640, 360}, // never enlarges
		{"short:336,max:448", 1920, 1080, 448, 252},
		{"native", 321, 241, 321, 241},
		{"", 7, 5, 7, 5},
	}
	for _, tt := range tests {
		s, err := ParseSize(tt.spec)
		if err != nil {
			t.Fatalf("ParseSize(%q): %v", tt.spec, err)
		}
		if w, h := s.Of(tt.w, tt.h); w != tt.wantW || h != tt.wantH {
			t.Errorf("%q of %dx%d: got %dx%d, want %dx%d", tt.spec, tt.w, tt.h, w, h, tt.wantW, tt.wantH)
		}
	}
	for _, bad := range []string{"0", "x", "long:3", "short:-1", "max:99999"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) succeeded", bad)
		}
	}
}

func TestRotateRGB(t *testing.T) {
	t.Parallel()
	// A 3x2 image whose pixels are numbered 1..6 row by row.
	src := make([]byte, 0, 18)
	for i := byte(1); i <= 6; i++ {
		src = append(src, i, i, i)
	}
	tests := []struct {
		deg  int
		want []byte // pixel numbers of the result, row by row
	}{
		{90, []byte{4, 1, 5, 2, 6, 3}},  // 2 wide, 3 high
		{180, []byte{6, 5, 4, 3, 2, 1}}, // 3 wide, 2 high
		{270, []byte{3, 6, 2, 5, 1, 4}}, // 2 wide, 3 high
	}
	for _, tt := range tests {
		dst := make([]byte, 18)
		rotateRGB(dst, src, 3, 2, tt.deg)
		got := make([]byte, 6)
		for i := range got {
			got[i] = dst[3*i]
		}
		if !bytes.Equal(got, tt.want) {
			t.Errorf("rotate %d: got %v, want %v", tt.deg, got, tt.want)
		}
	}
}

func TestMulDiv(t *testing.T) {
	// Against big.Int, including products far beyond int64.
	ref := func(a, b, c int64, round bool) int64 {
		n := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
		if round {
			r := new(big.Rat).SetFrac(n, big.NewInt(c))
			f, _ := r.Float64()
			return int64(math.Round(f))
		}
		q, m := new(big.Int).DivMod(n, big.NewInt(c), new(big.Int))
		_ = m
		return q.Int64()
	}
	for _, a := range []int64{0, 1, -1, 7, -7, 511, -1024, 15360 * 3600 * 10, -15360 * 3600, 1 << 40, -(1 << 40)} {
		for _, bc := range [][2]int64{{1, 2}, {1e9, 15360}, {15360, 1e9}, {1e9, 90000}, {1e9, 1}, {1001, 30000}} {
			for _, round := range []bool{false, true} {
				if math.Abs(float64(a)*float64(bc[0])/float64(bc[1])) > 9e18 {
					continue
				}
				if got, want := mulDiv(a, bc[0], bc[1], round), ref(a, bc[0], bc[1], round); got != want && math.Abs(float64(got-want)) > 1e-9*math.Abs(float64(want)) {
					t.Errorf("mulDiv(%d, %d, %d, %v) = %d, want %d", a, bc[0], bc[1], round, got, want)
				}
			}
		}
	}
}

// TestFramesReuseBuffers checks that a caller passing its previous result
// back gets the same pixel buffers: a repeated call (which seeks back and
// decodes again) allocates far fewer bytes than its frames hold. FFmpeg's
// error values (EAGAIN per packet) still cost a few small allocations, so
// bytes are counted, not allocations.
func TestFramesReuseBuffers(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, testVideoPath(t, "h264_gop30.mp4"), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	times, err := Sample(d.Info(), Clip{}, "uniform:32", 0)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := d.Frames(ctx, times, Size{Short: 64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := &frames[5].RGB[0]
	held := 0
	for _, f := range frames {
		held += len(f.RGB)
	}
	const calls = 3
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < calls; i++ {
		if frames, err = d.Frames(ctx, times, Size{Short: 64}, frames); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if &frames[5].RGB[0] != first {
		t.Error("the RGB buffer was replaced, not reused")
	}
	if s := d.Stats(); s.FramesDecoded < 2*len(times) {
		t.Errorf("%d frames decoded in %d calls of %d times: the repeated calls did not decode", s.FramesDecoded, calls+1, len(times))
	}
	if perCall := (after.TotalAlloc - before.TotalAlloc) / calls; perCall >= uint64(held)/8 {
		t.Errorf("%d bytes allocated per call, want far fewer than the %d bytes its frames hold", perCall, held)
	}
}
