// Package audio turns 16 kHz mono samples into the log-mel features a
// Whisper-style speech encoder reads, computed as Whisper computes them
// (openai/whisper audio.py, and transformers' WhisperFeatureExtractor, which
// matches it): the samples padded with zeros or cut to 30 s (480,000
// samples); a short-time Fourier transform with a 25 ms periodic Hann window
// (n_fft 400), a hop of 160 samples (10 ms), centred frames with reflect
// padding of 200 samples on each side, the last frame dropped (3,000
// frames); the power spectrum through 80 triangular mel filters (128 for
// whisper-large-v3, NewMels; Slaney's mel scale and area normalisation, 0
// to 8,000 Hz, librosa's default filterbank); log10 of the energies clamped below at 1e-10; every value
// raised to at least the window's maximum minus 8; then (x + 4) / 4.
//
// It is plain Go with no dependencies, so the features are the same bytes on
// every machine: Features of the same samples is a pure function.
package audio
