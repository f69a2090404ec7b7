package attack

import (
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/kernels"
)

// Visual is what the feature stage made for one item: embeddings of frames
// of its clip, of captions of those frames, and of its texts in the spaces
// the frame attackers compare them in. Fields an attacker of the run does
// not need may be nil. Every row is a unit vector.
type Visual struct {
	// Failure says why the item's video gave no features ("missing",
	// "corrupt", "outside-root", ...); the other fields are then nil and
	// every frame attacker abstains on the item.
	Failure string

	// Centre is the image_text embedding of the clip's centre frame.
	Centre []float32
	// Bag holds the image_text embeddings of the clip's frames at about one
	// per second, in time order (Video-Oasis's bag-of-frames set).
	Bag *kernels.Matrix

	// Question, Options and QuestionOptions are image_text text embeddings
	// of the question, of each option text and of "question option" for
	// each option.
	Question        []float32
	Options         *kernels.Matrix
	QuestionOptions *kernels.Matrix
	// Scale and Bias turn an image-text cosine into a zero-shot logit
	// (CLIP: 100 and 0).
	Scale, Bias float64
	// Sigmoid scores each option by log sigmoid of its logit, SigLIP's
	// zero-shot rule (models.ImageText.ZeroShot), instead of CLIP's
	// softmax over the options; both pick the same option.
	Sigmoid bool

	// Captions holds the text_embed embeddings of the captions of the clip's
	// 32 uniform frames, each written without the question (Video-Index
	// 3.5); OptionTexts the text_embed embeddings of the option texts.
	Captions    *kernels.Matrix
	OptionTexts *kernels.Matrix
	// CaptionTexts are those captions themselves, in time order (empty
	// captions left out), for the readers.
	CaptionTexts []string

	// VLM holds the vlm_reader's letter log-probabilities for the item, one
	// per option, under each frame set the VLM readers read (keyed by
	// VLMCentre, VLMShuffled, VLMTenth, VLMInOrder). A set is absent when the feature
	// stage made no scores for it (the video failed, or the prompt did not
	// fit the model even with one frame).
	VLM map[string][]float64

	// Transcript is what the asr role heard in the item's video
	// (transcript.go); nil when no transcript attacker runs.
	Transcript *Transcript
}

// The frame sets of the VLM readers, as keys of Visual.VLM.
const (
	VLMCentre   = "vlm-centre"   // the clip's centre frame
	VLMShuffled = "vlm-shuffled" // the uniform frames in a seeded shuffle
	VLMTenth    = "vlm-tenth"    // uniform frames of one seeded contiguous tenth
	VLMInOrder  = "vlm-in-order" // the uniform frames in time order (full-video-reader)
	// VLMChunk(k) holds the scores of chunk k of eight (eight-chunk-reader).
	// VLMShuffledScreen holds screen_reader's scores of VLMShuffled's
	// frames, in the same shuffle (shuffled-frames-screen-reader).
	VLMShuffledScreen = "screen-shuffled"
)

// Needs says what a frame attacker reads from the feature stage, so that a
// run plans, decodes and embeds only that.
type Needs uint16

// The features a frame attacker may need.
const (
	NeedCentre      Needs = 1 << iota // Visual.Centre, Options, QuestionOptions
	NeedBag                           // Visual.Bag, Question, Options
	NeedCaptions                      // Visual.Captions, OptionTexts
	NeedVLMCentre                     // Visual.VLM[VLMCentre]
	NeedVLMShuffled                   // Visual.VLM[VLMShuffled]
	NeedVLMTenth                      // Visual.VLM[VLMTenth]
	NeedVLMInOrder                    // Visual.VLM[VLMInOrder]
	NeedTranscript                    // Visual.Transcript
	NeedVLMChunks                     // Visual.VLM[VLMChunk(k)], k = 1..VLMChunks
)

// Has reports whether n includes every feature of m.
func (n Needs) Has(m Needs) bool { return n&m == m }

type frameUser interface{ needs() Needs }

// FrameNeeds returns what a reads from Stream.Visual; 0 for an attacker that
// never sees the video.
func FrameNeeds(a Attacker) Needs {
	if f, ok := a.(frameUser); ok {
		return f.needs()
	}
	return 0
}

// Role names of the models directory (models.Role values) the frame
// attackers need; a run without one of them skips the attackers that need
// it, naming the role.
const (
	RoleImageText = "image_text"
	RoleTextEmbed = "text_embed"
	RoleCaptioner = "captioner"
	RoleVLMReader = "vlm_reader"
	// RoleScreenReader is the funnel's smaller VLM (Video-Index 5.1): with
	// it, shuffled-frames-screen-reader runs.
	RoleScreenReader = "screen_reader"
)

// dot is the cosine of two unit vectors.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// checkVisual checks that s carries one Visual per item.
func checkVisual(name string, s *Stream) error {
	if len(s.Visual) != len(s.Items) {
		return fmt.Errorf("%s: stream has %d visual features for %d items", name, len(s.Visual), len(s.Items))
	}
	return nil
}

// zeroShotScores turns an item's image-text logits into option scores by
// v's rule: log softmax over the options (CLIP) or log sigmoid per option
// (SigLIP).
func (v *Visual) zeroShotScores(logits []float64) []float64 {
	if !v.Sigmoid {
		return logSoftmax(logits)
	}
	out := make([]float64, len(logits))
	for i, x := range logits {
		if x >= 0 {
			out[i] = -math.Log1p(math.Exp(-x))
		} else {
			out[i] = x - math.Log1p(math.Exp(x))
		}
	}
	return out
}
