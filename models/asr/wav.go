package asr

import (
	"encoding/binary"
	"math"
)

// wav encodes 16 kHz mono samples as a RIFF WAVE file of 16-bit PCM, the
// form every transcription server decodes; samples outside [-1, 1] are
// clipped.
func wav(samples []float32, rate int) []byte {
	const bits, channels = 16, 1
	data := 2 * len(samples)
	b := make([]byte, 0, 44+data)
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(36+data))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16) // fmt chunk size
	b = binary.LittleEndian.AppendUint16(b, 1)  // PCM
	b = binary.LittleEndian.AppendUint16(b, channels)
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*channels*bits/8))
	b = binary.LittleEndian.AppendUint16(b, channels*bits/8)
	b = binary.LittleEndian.AppendUint16(b, bits)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(data))
	for _, s := range samples {
		v := math.Round(float64(max(-1, min(1, s))) * 32767)
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(v)))
	}
	return b
}
