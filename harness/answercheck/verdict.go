package answercheck

import (
	"math"
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// The verdicts of the verifier (compose/verify.py VERDICTS), in the order
// the reader sees them as options A-D.
const (
	// Supported: the frames show the marked answer is correct and the
	// alternatives wrong.
	Supported = "supported"
	// Contradicted: the frames show a different option is correct.
	Contradicted = "contradicted"
	// NotVerifiable: the frames neither confirm nor rule out the marked
	// answer.
	NotVerifiable = "not_verifiable"
	// DefinitionDependent: the correct option hinges on a benchmark-specific
	// definition or a subjective judgement.
	DefinitionDependent = "definition_dependent"
)

// Verdicts lists the verdicts in option order.
var Verdicts = []string{Supported, Contradicted, NotVerifiable, DefinitionDependent}

// definitions are the verdicts as the reader reads them: the authors'
// definitions (compose/verify.py QUESTION), one option each.
var definitions = []string{
	"supported: the frames show the marked answer is correct and the alternatives are wrong",
	"contradicted: the frames show a different option is correct",
	"not_verifiable: the frames neither confirm nor rule out the marked answer",
	"definition_dependent: the correct option hinges on a benchmark-specific definition or a subjective judgement",
}

// The frame budgets and the short-video bound of the stage (the authors'
// compose.verify_frames, compose.recheck_frames, compose.short_video_s).
const (
	FirstFrames       = 32
	RecheckFrames     = 512
	ShortVideoSeconds = 60.0
)

// FirstSampler and RecheckSampler are the two passes' frame samplers
// (decode.ParseSampler): one frame per second, thinned uniformly to the
// budget when the clip is longer (the authors' F.fps(video, 1.0, cap)).
const (
	FirstSampler   = "fps:1,max:32"
	RecheckSampler = "fps:1,max:512"
)

// orderingRE is the authors' ORDERING_RE (pool/schema.py): items asking to
// order options are not sent to the verifier (compose/verify.py run_pass)
// and so get no verdict.
var orderingRE = regexp.MustCompile(`(?i)select the correct order of the following options`)

// Asked reports whether the verifier is asked about the item: every item
// but the ordering questions.
func Asked(it *harness.Item) bool { return !orderingRE.MatchString(it.Question) }

// Item returns the item the verifier reads: the item's own clip, video and
// key, with the authors' verification question (the question, its
// lettered options and the marked answer) as its question and the four
// verdicts as its options. Its Answer is 0 and means nothing.
func Item(it *harness.Item) *harness.Item {
	c := *it
	c.Question = Question(it)
	c.Options = append([]string(nil), definitions...)
	c.Answer = 0
	return &c
}

// Question is the verification question of an item (compose/verify.py
// QUESTION, less the reply format: the reader answers with a letter).
func Question(it *harness.Item) string {
	var b strings.Builder
	b.WriteString("A benchmark asks the multiple-choice question below about this video and marks one option as correct.\n\nQuestion: ")
	b.WriteString(it.Question)
	for j, o := range it.Options {
		b.WriteString("\n")
		b.WriteString(string(rune('A' + j)))
		b.WriteString(". ")
		b.WriteString(o)
	}
	b.WriteString("\nMarked answer: ")
	if it.Answer >= 0 && it.Answer < len(it.Options) {
		b.WriteString(string(rune('A' + it.Answer)))
	}
	b.WriteString("\n\nJudge whether the marked answer is right given what is visible in the frames, with one verdict.")
	return b.String()
}

// VerdictOf returns the verdict the reader favours from its log-probabilities
// of the letters A-D (the first of the largest), or "" when it gave none.
func VerdictOf(scores []float64) string {
	if len(scores) != len(Verdicts) {
		return ""
	}
	best := 0
	for j, s := range scores {
		if math.IsNaN(s) {
			return ""
		}
		if s > scores[best] {
			best = j
		}
	}
	return Verdicts[best]
}

// Recheck reports whether a first verdict is asked again at RecheckFrames
// (compose/verify.py RECHECK).
func Recheck(verdict string) bool { return verdict == NotVerifiable || verdict == Contradicted }

// The reasons Keep gives (compose/verify.py keep_rule, less its reversed
// clips, which vidscreen's items cannot name).
const (
	ReasonSupported           = "supported"
	ReasonNotVerifiableLong   = "not_verifiable_long"
	ReasonNotVerifiableShort  = "not_verifiable_short"
	ReasonContradicted        = Contradicted
	ReasonDefinitionDependent = DefinitionDependent
	ReasonNoVerdict           = "no_verdict"
)

// Keep decides from the final verdict ("" for none) and the video's
// duration in seconds (NaN when unknown) whether the item is kept, and
// why: supported keeps; not_verifiable keeps on a video of at least
// ShortVideoSeconds (where 32 or even 512 frames can miss the evidence)
// and drops on a shorter or unknown one; contradicted,
// definition_dependent and no verdict drop.
func Keep(verdict string, seconds float64) (bool, string) {
	switch verdict {
	case Supported:
		return true, ReasonSupported
	case NotVerifiable:
		if !math.IsNaN(seconds) && seconds >= ShortVideoSeconds {
			return true, ReasonNotVerifiableLong
		}
		return false, ReasonNotVerifiableShort
	case Contradicted:
		return false, ReasonContradicted
	case DefinitionDependent:
		return false, ReasonDefinitionDependent
	}
	return false, ReasonNoVerdict
}

// Decide returns an item's Record from its verdicts at FirstFrames and,
// where First asked for one, at RecheckFrames ("" where the reader gave
// none), and its video's duration (NaN when unknown): the second verdict
// replaces the first (compose/verify.py final_verdict), and a recheck that
// gave none leaves the first.
func Decide(it *harness.Item, first, second string, seconds float64) Record {
	r := Record{Benchmark: it.Benchmark, ID: it.ID, Asked: Asked(it)}
	if r.Asked {
		r.First = first
		if Recheck(first) {
			r.Second = second
		}
		switch {
		case r.Second != "":
			r.Verdict, r.Frames = r.Second, RecheckFrames
		case r.First != "":
			r.Verdict, r.Frames = r.First, FirstFrames
		}
	}
	r.Keep, r.Reason = Keep(r.Verdict, seconds)
	return r
}
