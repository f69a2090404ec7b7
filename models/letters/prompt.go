package letters

// Prompt is one multiple-choice prompt for a reader. An item's prompt is
// given by its Parts (which of the authors' prompts, the question, the
// options in the order shown, the context), and every reader renders it
// from them through one Wording: the ONNX readers through the model's chat
// template, the served readers as chat messages, so that both ask the same
// thing. Text is the plain rendering of the parts in the default wording
// (New fills it: the prompt a model without a chat template reads, and what
// the harness's fakes read); a prompt with no Parts (Kind empty) is raw
// text, read as it is. Options says how many letters (A, B, ...) to score.
type Prompt struct {
	Text    string
	Options int
	Parts   Parts
}

// New returns the prompt of parts: Options from its options, Text its
// plain rendering in the default wording.
func New(p Parts) Prompt {
	return Prompt{Text: Default().Plain(p), Options: len(p.Options), Parts: p}
}

// Structured reports whether the prompt carries its parts (an item's
// prompt) rather than raw text.
func (p Prompt) Structured() bool { return p.Parts.Kind != "" }

// Kind names which prompt of the Video-Index authors a reader is given
// (video_index/audit/prompts.py, video_index/pool/screen.py); the readers
// the authors have no prompt for (transcript, retrieved examples) have
// their own in the same form.
type Kind string

// The kinds of prompt.
const (
	// KindOptionsOnly: the lettered options alone (the options-only reader).
	KindOptionsOnly Kind = "options_only"
	// KindBlind: the question and its options, no video (the blind reader).
	KindBlind Kind = "blind"
	// KindVisual: Frames frames, the question and its options (vlm_reader).
	KindVisual Kind = "visual"
	// KindFrameCaptions: one caption per frame (Captions), in frame order.
	KindFrameCaptions Kind = "frame_captions"
	// KindVideoCaption: one description of the whole video (Context).
	KindVideoCaption Kind = "video_caption"
	// KindTranscript: the transcript of the video's audio (Context).
	KindTranscript Kind = "transcript"
	// KindExamples: answered items retrieved as examples (Context).
	KindExamples Kind = "examples"
)

// Kinds lists every kind, in the order a prompt file is written.
var Kinds = []Kind{KindOptionsOnly, KindBlind, KindVisual, KindFrameCaptions, KindVideoCaption, KindTranscript, KindExamples}

// Parts are what a reader is given for one item.
type Parts struct {
	Kind Kind
	// Question is the item's question (empty for KindOptionsOnly).
	Question string
	// Options are the option texts in the order shown, lettered A, B, ...
	Options []string
	// Context is the video's description, its transcript or the retrieved
	// examples, as Kind says.
	Context string
	// Captions are the frames' captions in frame order (KindFrameCaptions).
	Captions []string
	// Frames is the number of frames shown (KindVisual): the images go
	// before the text, as the authors send them.
	Frames int
}
