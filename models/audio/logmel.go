package audio

import (
	"fmt"
	"math"
	"math/cmplx"
	"sync"
)

// Whisper's feature constants (openai/whisper audio.py).
const (
	SampleRate = 16000
	NFFT       = 400
	HopLength  = 160
	// NMels is the mel bins of Whisper up to large-v2 (New); large-v3
	// reads 128 (NewMels(128)).
	NMels = 80
	// ChunkSeconds is the window one encoder pass reads; ChunkSamples and
	// Frames are its length in samples and in feature frames.
	ChunkSeconds = 30
	ChunkSamples = ChunkSeconds * SampleRate
	Frames       = ChunkSamples / HopLength
	// Floor is the value of silence: log10(1e-10) = -10 scaled, (-10+4)/4.
	Floor = -1.5
)

// Extractor computes log-mel features. It holds the window, the filterbank
// and the transform plan, read only after New, so one Extractor serves
// many goroutines.
type Extractor struct {
	nMels   int
	window  []float64
	filters [][]float64
	// first and last are each filter's first and last nonzero bin, so the
	// product skips the zeros.
	first, last []int
	plan        *fftPlan
	bufs        sync.Pool
}

// New returns the extractor of Whisper's 80-bin features.
func New() *Extractor {
	e, _ := NewMels(NMels)
	return e
}

// MaxMels bounds the mel bins NewMels accepts: with 201 frequency bins of
// 40 Hz, filters past a few hundred would be narrower than one bin and
// all zeros.
const MaxMels = 256

// NewMels returns the extractor of nMels-bin features: 80 for Whisper up to
// large-v2, 128 for large-v3 (its preprocessor_config.json's
// feature_size), the same Slaney filters over 0 to 8 kHz, as transformers'
// WhisperFeatureExtractor builds them for any feature_size.
func NewMels(nMels int) (*Extractor, error) {
	if nMels < 1 || nMels > MaxMels {
		return nil, fmt.Errorf("audio: %d mel bins; want 1 to %d (Whisper reads 80, large-v3 128)", nMels, MaxMels)
	}
	e := &Extractor{nMels: nMels, window: make([]float64, NFFT), filters: MelFilters(SampleRate, NFFT, nMels), plan: newFFTPlan(NFFT)}
	// torch.hann_window(400) is periodic: 0.5 - 0.5 cos(2 pi n / N).
	for n := range NFFT {
		e.window[n] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(n)/NFFT)
	}
	for _, row := range e.filters {
		f, l := -1, -1
		for k, w := range row {
			if w != 0 {
				if f < 0 {
					f = k
				}
				l = k
			}
		}
		e.first, e.last = append(e.first, f), append(e.last, l)
	}
	e.bufs.New = func() any {
		return &frameBuf{in: make([]complex128, NFFT), out: make([]complex128, NFFT), power: make([]float64, NFFT/2+1), power2: make([]float64, NFFT/2+1)}
	}
	return e, nil
}

// Mels is the number of mel bins: the rows of Features.
func (e *Extractor) Mels() int { return e.nMels }

type frameBuf struct {
	in, out       []complex128
	power, power2 []float64
}

// melRow writes frame t's mel energies from its power spectrum.
func (e *Extractor) melRow(mel []float64, t int, power []float64) {
	for m, row := range e.filters {
		var s float64
		for k := e.first[m]; k <= e.last[m] && k >= 0; k++ {
			s += row[k] * power[k]
		}
		mel[m*Frames+t] = s
	}
}

// Chunks is the number of 30 s windows samples fill: at least one, so that
// an empty track still gives the features of silence.
func Chunks(samples int) int { return max(1, (samples+ChunkSamples-1)/ChunkSamples) }

// Features returns the features of the 30 s window chunk of samples (16
// kHz mono), row major (Mels rows of Frames values), what a Whisper
// encoder's input_features [1, Mels, 3000] holds. Samples past the end are
// zeros.
func (e *Extractor) Features(samples []float32, chunk int) ([]float32, error) {
	if chunk < 0 || chunk >= Chunks(len(samples)) {
		return nil, fmt.Errorf("audio: window %d of a track of %d samples (%d windows)", chunk, len(samples), Chunks(len(samples)))
	}
	mel := e.energies(samples, chunk)
	top := math.Inf(-1)
	for i, v := range mel {
		v = math.Log10(max(v, 1e-10))
		mel[i] = v
		top = max(top, v)
	}
	out := make([]float32, len(mel))
	for i, v := range mel {
		out[i] = float32((max(v, top-8) + 4) / 4)
	}
	return out, nil
}

// energies returns the mel filter energies of window chunk (Mels rows of
// Frames), before the log.
func (e *Extractor) energies(samples []float32, chunk int) []float64 {
	lo := min(len(samples), chunk*ChunkSamples)
	hi := min(len(samples), lo+ChunkSamples)
	x := make([]float64, ChunkSamples+NFFT) // reflect-padded by NFFT/2 each side
	pad := NFFT / 2
	for i, s := range samples[lo:hi] {
		x[pad+i] = float64(s)
	}
	for i := 1; i <= pad; i++ {
		x[pad-i] = x[pad+i]
		x[pad+ChunkSamples-1+i] = x[pad+ChunkSamples-1-i]
	}
	mel := make([]float64, e.nMels*Frames)
	b := e.bufs.Get().(*frameBuf)
	defer e.bufs.Put(b)
	// Two real frames per complex transform (frame t in the real part,
	// t+1 in the imaginary): X_t[k] = (Z[k] + conj Z[N-k]) / 2 and
	// X_t+1[k] = (Z[k] - conj Z[N-k]) / 2i, half the transforms.
	for t := 0; t < Frames; t += 2 {
		a := x[t*HopLength : t*HopLength+NFFT]
		var c []float64
		if t+1 < Frames {
			c = x[(t+1)*HopLength : (t+1)*HopLength+NFFT]
		}
		for n := range NFFT {
			im := 0.0
			if c != nil {
				im = c[n] * e.window[n]
			}
			b.in[n] = complex(a[n]*e.window[n], im)
		}
		e.plan.transform(b.out, b.in)
		for k := range b.power {
			z, w := b.out[k], cmplx.Conj(b.out[(NFFT-k)%NFFT])
			p, q := (z+w)/2, (z-w)/complex(0, 2)
			b.power[k] = real(p)*real(p) + imag(p)*imag(p)
			b.power2[k] = real(q)*real(q) + imag(q)*imag(q)
		}
		e.melRow(mel, t, b.power)
		if c != nil {
			e.melRow(mel, t+1, b.power2)
		}
	}
	return mel
}
