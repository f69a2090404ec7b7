package imageprep

import "math"

// A filter is a resampling kernel centred on 0 and zero outside [-support, support].
type filter struct {
	support float64
	at      func(x float64) float64
}

// filterFor returns the kernel PIL uses for r. Definitions follow Pillow's
// Resample.c documentation of each filter: bicubic is Keys' cubic with
// a = -0.5, Lanczos is windowed sinc with a = 3, Hamming is sinc with a
// Hamming window over [-1, 1].
func filterFor(r Resample) filter {
	switch r {
	case Box:
		return filter{0.5, func(x float64) float64 {
			if x > -0.5 && x <= 0.5 {
				return 1
			}
			return 0
		}}
	case Bilinear:
		return filter{1, func(x float64) float64 {
			x = math.Abs(x)
			if x < 1 {
				return 1 - x
			}
			return 0
		}}
	case Hamming:
		return filter{1, func(x float64) float64 {
			x = math.Abs(x)
			if x == 0 {
				return 1
			}
			if x >= 1 {
				return 0
			}
			x *= math.Pi
			// Pillow writes the window's constants as C floats.
			return math.Sin(x) / x * (float64(float32(0.54)) + float64(float32(0.46))*math.Cos(x))
		}}
	case Lanczos:
		return filter{3, func(x float64) float64 {
			if x >= -3 && x < 3 {
				return sinc(x) * sinc(x/3)
			}
			return 0
		}}
	}
	return filter{2, bicubic}
}

// bicubicA is the free parameter of Keys' cubic convolution kernel. PIL
// uses -0.5 (Catmull-Rom); OpenCV's INTER_CUBIC and PyTorch's bicubic
// without antialiasing use -0.75.
const bicubicA = -0.5

func bicubic(x float64) float64 {
	const a = bicubicA
	x = math.Abs(x)
	switch {
	case x < 1:
		return ((a+2)*x-(a+3))*x*x + 1
	case x < 2:
		return (((x-5)*x+8)*x - 4) * a
	}
	return 0
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	x *= math.Pi
	return math.Sin(x) / x
}

// precisionBits is the fixed-point precision of the 8-bit passes: 32 bits
// less 8 for the pixel and 2 for headroom, as in Pillow, so that a sum of
// 255 times weights whose magnitudes add up to under 2 fits in an int32.
const precisionBits = 32 - 8 - 2

// weights holds, for a range of output positions along one axis, the first
// source position each reads, how many it reads, and the weights.
type weights struct {
	key   [4]int  // in, out, first, count of the last computeWeights; frames of one video share it
	taps  int     // stride of w: the most source positions any output reads
	start []int   // first source index per output
	n     []int   // number of source positions per output
	w     []int32 // fixed-point weights, taps per output
	f     []float64
}

// computeWeights fills ws for output positions [first, first+count) of a
// resize from in to out samples. Output i is centred on source coordinate
// (i+0.5)*in/out; when shrinking, the kernel is stretched by in/out so that
// every source sample contributes (antialiasing); the weights of each
// output are normalised to sum to one, then rounded to precisionBits.
// A filter is fixed per Processor, so ws is reused as is when the sizes are
// those of its last call.
func computeWeights(ws *weights, in, out, first, count int, f filter) {
	key := [4]int{in, out, first, count}
	if ws.key == key && ws.start != nil {
		return
	}
	ws.key = key
	scale := float64(in) / float64(out)
	fscale := math.Max(scale, 1)
	support := f.support * fscale
	taps := int(math.Ceil(support))*2 + 1
	ws.taps = taps
	ws.start = resizeInts(ws.start, count)
	ws.n = resizeInts(ws.n, count)
	ws.w = resizeInt32s(ws.w, count*taps)
	ws.f = resizeFloats(ws.f, count*taps)
	for k := 0; k < count; k++ {
		center := (float64(first+k) + 0.5) * scale
		lo := int(center - support + 0.5) // truncation, as a C cast; clamped below
		if lo < 0 {
			lo = 0
		}
		hi := int(center + support + 0.5)
		if hi > in {
			hi = in
		}
		n := hi - lo
		fw := ws.f[k*taps : (k+1)*taps]
		sum := 0.0
		for t := 0; t < n; t++ {
			v := f.at((float64(t+lo) - center + 0.5) / fscale)
			fw[t] = v
			sum += v
		}
		for t := n; t < taps; t++ {
			fw[t] = 0
		}
		iw := ws.w[k*taps : (k+1)*taps]
		for t := 0; t < taps; t++ {
			if sum != 0 && t < n {
				fw[t] /= sum
			}
			// Round half away from zero, then truncate, as Pillow's
			// normalize_coeffs_8bpp does.
			if fw[t] < 0 {
				iw[t] = int32(-0.5 + fw[t]*(1<<precisionBits))
			} else {
				iw[t] = int32(0.5 + fw[t]*(1<<precisionBits))
			}
		}
		ws.start[k], ws.n[k] = lo, n
	}
}

func resizeInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

func resizeInt32s(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func resizeFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// clip8 turns a fixed-point sum (which started at one half for rounding)
// into a pixel level.
func clip8(v int32) byte {
	if v >= 255<<precisionBits {
		return 255
	}
	if v <= 0 {
		return 0
	}
	return byte(v >> precisionBits)
}
