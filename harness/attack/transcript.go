package attack

import "github.com/vidscreen/vidscreen/kernels"

// RoleASR is the asr role: it transcribes a video's audio track for the
// transcript attackers (Video-Oasis 3.1, the audio test).
const RoleASR = "asr"

// Transcript is what the feature stage heard in one item's video: the asr
// role's transcript of its whole audio track, and that text and the
// item's options embedded by the run's text embedder (text_embed, or the
// lexical one without it), unit rows.
type Transcript struct {
	// NoStream is true when the video has no audio stream: the transcript
	// attackers abstain on its items (counted as abstentions, not
	// failures).
	NoStream bool
	Text     string
	// Embedding is the text's embedding (nil when Text is empty);
	// Options holds one row per option.
	Embedding []float32
	Options   *kernels.Matrix
}

// heard returns the item's transcript when it has one to read: its video
// decoded, it has an audio stream, and the asr heard something.
func heard(v *Visual) (*Transcript, bool) {
	if v == nil || v.Failure != "" || v.Transcript == nil || v.Transcript.NoStream || v.Transcript.Text == "" {
		return nil, false
	}
	return v.Transcript, true
}

// The transcript attackers are the audio test of Video-Oasis (seed 003,
// section 3.1): diagnostic models, reported on the cards in their own rows
// and counted in the consensus, in no level's eps nor Holm family (the
// papers' pyramid has no audio access, and its tables stay comparable).
func (*transcriptReader) diagnosticOnly() bool { return true }
func (*transcriptMatch) diagnosticOnly() bool  { return true }

// transcript-reader reads letters with lm_reader, from a prompt built of
// the options at attack time.
func (*transcriptReader) scoresLetters()  {}
func (*transcriptReader) promptsOptions() {}
