package formats

import (
	"strings"
	"testing"
)

// BenchmarkParsePrompt reads the question and options of one prompt, as
// an import of a samples log does per line: the export's layout (options
// wrapped over lines) and Video-MME's.
func BenchmarkParsePrompt(b *testing.B) {
	export := "You are given a video. Answer the question about it.\n\nThe man lists:\nA. flour\nB. eggs\nWhich does he add last?\n" +
		"A. flour,\nsifted\nB. eggs\nC. milk\nD. " + strings.Repeat("butter ", 20) + "\n" + exportPostPrompt
	videomme := "Select the best answer to the following multiple-choice question based on the video.\nHow many apples?\nA. One.\nB. Two.\nC. Three.\nD. Four.\n" + exportPostPrompt
	for _, bb := range []struct{ name, prompt string }{{"export", export}, {"videomme", videomme}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.prompt)))
			for b.Loop() {
				if _, opts, err := parsePrompt(bb.prompt); err != nil || len(opts) < 4 {
					b.Fatalf("%q, %v", opts, err)
				}
			}
		})
	}
}
