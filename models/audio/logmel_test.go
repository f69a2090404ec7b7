package audio

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

func TestFFTMatchesNaiveDFT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 16, 25, 400, 7, 30} {
		in := make([]complex128, n)
		for i := range in {
			in[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		got := make([]complex128, n)
		newFFTPlan(n).transform(got, in)
		want := naiveDFT(in)
		for k := range want {
			if cmplx.Abs(got[k]-want[k]) > 1e-9*float64(n) {
				t.Fatalf("n=%d bin %d: got %v, want %v", n, k, got[k], want[k])
			}
		}
	}
}

// TestMelFilterByHand checks the first filter against librosa's formula
// worked by hand: with 80 mels from 0 to 8 kHz the mel points are 0.5586
// mel apart, so filter 0 rises from 0 Hz to 37.24 Hz and falls to 74.48
// Hz; bin 1 (40 Hz) weighs min(40/37.24, 34.48/37.24) = 0.9259 times the
// area norm 2/74.48: 0.024863.
func TestMelFilterByHand(t *testing.T) {
	t.Parallel()
	f := MelFilters(SampleRate, NFFT, NMels)
	if len(f) != 80 || len(f[0]) != 201 {
		t.Fatalf("filterbank %dx%d, want 80x201", len(f), len(f[0]))
	}
	cases := []struct {
		m, k int
		want float64
	}{{0, 0, 0}, {0, 1, 0.024863}, {0, 2, 0}}
	for _, c := range cases {
		if math.Abs(f[c.m][c.k]-c.want) > 2e-6 {
			t.Errorf("filter %d bin %d = %.6f, want %.6f", c.m, c.k, f[c.m][c.k], c.want)
		}
	}
	if c := MelCentre(SampleRate, NMels, 0); math.Abs(c-37.24) > 0.01 {
		t.Errorf("centre of filter 0 = %.3f Hz, want 37.24", c)
	}
	// Above 1 kHz the scale is logarithmic: the last filter peaks below 8 kHz
	// at 8000 / 6.4^(0.5586/27).
	if c, want := MelCentre(SampleRate, NMels, 79), 8000/math.Pow(6.4, hzToMel(8000)/81/27); math.Abs(c-want) > 0.5 {
		t.Errorf("centre of filter 79 = %.1f Hz, want %.1f", c, want)
	}
}

func tone(freq, seconds, amp float64) []float32 {
	n := int(seconds * SampleRate)
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/SampleRate))
	}
	return out
}

func TestFeatures(t *testing.T) {
	t.Parallel()
	e := New()
	t.Run("silence gives the floor", func(t *testing.T) {
		for _, samples := range [][]float32{nil, make([]float32, 16000)} {
			f, err := e.Features(samples, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(f) != NMels*Frames {
				t.Fatalf("%d values, want %d", len(f), NMels*Frames)
			}
			for i, v := range f {
				if v != Floor {
					t.Fatalf("value %d = %v, want %v", i, v, Floor)
				}
			}
		}
	})
	for _, m := range []int{12, 30, 47, 60} {
		freq := MelCentre(SampleRate, NMels, m)
		f, err := e.Features(tone(freq, 2, 0.5), 0)
		if err != nil {
			t.Fatal(err)
		}
		// Frame 100 (1 s) lies inside the tone: its loudest bin is m, and
		// it is the window's maximum, (top + 4) / 4; frame 2500 (25 s) is
		// past the tone, 8 decades below: the clamp.
		best, top := 0, float32(math.Inf(-1))
		for b := range NMels {
			v := f[b*Frames+100]
			if v > f[best*Frames+100] {
				best = b
			}
			top = max(top, v)
		}
		if best != m {
			t.Errorf("tone at %.1f Hz (filter %d): loudest filter %d", freq, m, best)
		}
		var maxAll float32 = -10
		for _, v := range f {
			maxAll = max(maxAll, v)
		}
		if math.Abs(float64(top-maxAll)) > 0.05 {
			t.Errorf("filter %d: tone frame's top %.3f is not the window's top %.3f", m, top, maxAll)
		}
		if v := f[m*Frames+2500]; math.Abs(float64(v-(maxAll-2))) > 1e-6 {
			t.Errorf("filter %d: silence after the tone = %.4f, want the clamp top-8 scaled, %.4f", m, v, maxAll-2)
		}
	}
	t.Run("windows", func(t *testing.T) {
		long := make([]float32, ChunkSamples+10)
		if Chunks(len(long)) != 2 || Chunks(0) != 1 || Chunks(ChunkSamples) != 1 {
			t.Fatalf("Chunks: %d %d %d", Chunks(len(long)), Chunks(0), Chunks(ChunkSamples))
		}
		if _, err := e.Features(long, 2); err == nil {
			t.Fatal("window 2 of 2: no error")
		}
	})
}

func BenchmarkFeatures(b *testing.B) {
	e := New()
	s := tone(440, 30, 0.3)
	b.SetBytes(int64(len(s) * 4))
	for b.Loop() {
		if _, err := e.Features(s, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEnergiesMatchOneFrameAtATime checks the two-frames-per-transform
// path against each frame transformed alone by the naive DFT, on noise,
// at even and odd frames and both ends (the reflect padding).
func TestEnergiesMatchOneFrameAtATime(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	s := make([]float32, 3*SampleRate)
	for i := range s {
		s[i] = float32(rng.NormFloat64() * 0.1)
	}
	e := New()
	got := e.energies(s, 0)
	x := make([]float64, ChunkSamples+NFFT)
	for i, v := range s {
		x[NFFT/2+i] = float64(v)
	}
	for i := 1; i <= NFFT/2; i++ {
		x[NFFT/2-i] = x[NFFT/2+i]
	}
	for _, fr := range []int{0, 1, 2, 3, 150, 299, 300, 301, Frames - 1} {
		in := make([]complex128, NFFT)
		for n := range NFFT {
			in[n] = complex(x[fr*HopLength+n]*e.window[n], 0)
		}
		X := naiveDFT(in)
		for m, row := range e.filters {
			var want float64
			for k, w := range row {
				want += w * (real(X[k])*real(X[k]) + imag(X[k])*imag(X[k]))
			}
			if g := got[m*Frames+fr]; math.Abs(g-want) > 1e-9*max(1, want) {
				t.Fatalf("frame %d filter %d: %g, want %g", fr, m, g, want)
			}
		}
	}
}

// TestMelBins checks the bin counts NewMels takes: large-v3's 128 filters
// each hear the tone at their own centre loudest, silence is the floor in
// every row, and counts no filterbank fits are refused.
func TestMelBins(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, -1, MaxMels + 1} {
		if _, err := NewMels(n); err == nil {
			t.Errorf("NewMels(%d): no error", n)
		}
	}
	e, err := NewMels(128)
	if err != nil {
		t.Fatal(err)
	}
	if e.Mels() != 128 || New().Mels() != NMels {
		t.Fatalf("Mels: %d and %d, want 128 and %d", e.Mels(), New().Mels(), NMels)
	}
	f, err := e.Features(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 128*Frames || f[0] != Floor || f[len(f)-1] != Floor {
		t.Fatalf("silence: %d values, first %v last %v; want %d of %v", len(f), f[0], f[len(f)-1], 128*Frames, Floor)
	}
	// Below about 1.5 kHz 128 filters are narrower than the 40 Hz FFT
	// bins, so a tone there lights two filters alike: test above.
	for _, m := range []int{80, 100, 120, 127} {
		f, err := e.Features(tone(MelCentre(SampleRate, 128, m), 2, 0.5), 0)
		if err != nil {
			t.Fatal(err)
		}
		best := 0
		for b := range 128 {
			if f[b*Frames+100] > f[best*Frames+100] {
				best = b
			}
		}
		if best != m {
			t.Errorf("tone at the centre of filter %d of 128: loudest filter %d", m, best)
		}
	}
}
