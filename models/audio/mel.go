package audio

import "math"

// hzToMel and melToHz are Slaney's mel scale (librosa's htk=False): linear
// below 1 kHz (3 mels per 200 Hz), logarithmic above (27 mels per factor
// of 6.4).
func hzToMel(f float64) float64 {
	const fsp, minLog = 200.0 / 3, 1000.0
	if f < minLog {
		return f / fsp
	}
	return minLog/fsp + math.Log(f/minLog)/(math.Log(6.4)/27)
}

func melToHz(m float64) float64 {
	const fsp, minLog = 200.0 / 3, 1000.0
	minLogMel := minLog / fsp
	if m < minLogMel {
		return m * fsp
	}
	return minLog * math.Exp((math.Log(6.4)/27)*(m-minLogMel))
}

// MelFilters returns librosa.filters.mel(sr, nFFT, n_mels, fmin 0, fmax
// sr/2, htk False, norm "slaney"): nMels rows of 1+nFFT/2 weights, each a
// triangle between the centres of its neighbours, scaled by 2 / (its
// width in Hz) so that every filter has the same area.
func MelFilters(sr, nFFT, nMels int) [][]float64 {
	bins := 1 + nFFT/2
	fft := make([]float64, bins)
	for k := range bins {
		fft[k] = float64(k) * float64(sr) / float64(nFFT)
	}
	lo, hi := hzToMel(0), hzToMel(float64(sr)/2)
	pts := make([]float64, nMels+2)
	for i := range pts {
		pts[i] = melToHz(lo + (hi-lo)*float64(i)/float64(nMels+1))
	}
	out := make([][]float64, nMels)
	for m := range nMels {
		row := make([]float64, bins)
		l, c, r := pts[m], pts[m+1], pts[m+2]
		enorm := 2 / (r - l)
		for k, f := range fft {
			w := min((f-l)/(c-l), (r-f)/(r-c))
			if w > 0 {
				row[k] = w * enorm
			}
		}
		out[m] = row
	}
	return out
}

// MelCentre returns the centre frequency (Hz) of mel filter m of
// MelFilters(sr, _, nMels): where its triangle peaks.
func MelCentre(sr, nMels, m int) float64 {
	lo, hi := hzToMel(0), hzToMel(float64(sr)/2)
	return melToHz(lo + (hi-lo)*float64(m+1)/float64(nMels+1))
}
