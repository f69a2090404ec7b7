package letters

// Prompt is one multiple-choice prompt for a reader: the text ends where
// the model should write the answer letter, and Options says how many
// letters (A, B, ...) to score.
type Prompt struct {
	Text    string
	Options int
}
