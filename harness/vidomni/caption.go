package vidomni

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// CaptioningInstructions are the paper's five dense-captioning prompts
// (appendix B.2, figure 13), word for word; the paper gives each model one
// of them at random per video.
var CaptioningInstructions = []string{
	"Describe this video in detail, focusing on the spatio-temporal dynamics. Describe exactly how objects and agents move, change, and occupy space over time within the scene.",
	"Give a detailed account of everything shown in the video, capturing all visible specifics. Describe events in the exact order they appear over time. Ensure that you describe the sequence of events exactly as they occur, without skipping any steps.",
	"Describe the video in detail, paying special attention to how objects and people interact with each other. Capture the precise timing and nature of every contact, movement, and reaction shown in the footage.",
	"Thoroughly describe the video's visual narrative, capturing every visible detail from start to end. Emphasize how actions unfold and how the scene transitions logically over time.",
	"Provide a thorough description of every detail, explicitly prioritizing spatio-temporal dynamics. Capture all visual elements, and focus on their spatial positions, movement trajectories, and how the scene evolves over time.",
}

// FrameCaptioner is what the caption writer needs of the captioner role
// (*models.Captioner): one caption per frame.
type FrameCaptioner interface {
	CaptionFrames(ctx context.Context, frames []imageprep.Frame) ([]models.Caption, error)
}

// A DenseCaption is a video's caption written from its sampled frames.
type DenseCaption struct {
	// Pair names the video-caption pair: source/video.
	Pair      string   `json:"pair"`
	Video     string   `json:"video"`
	Source    string   `json:"source"`
	Caption   string   `json:"caption"`
	Sentences []string `json:"sentences"` // Split(Caption)
	Frames    int      `json:"frames"`
	// Instruction is the paper's captioning instruction used (1-5, figure
	// 13) when a generating model wrote the caption; 0 for an image
	// captioner, which takes none.
	Instruction int `json:"instruction,omitempty"`
}

// WriteCaptions captions every sampled frame of each video with an image
// captioner, in time order, and joins the captions into one dense caption:
// each frame's caption becomes a sentence (first letter capitalised, a
// period added), a caption equal to the one before it is dropped (a still
// shot would otherwise repeat itself, the repetition the paper's
// annotators label Frequency errors). An image captioner takes no
// instruction; CaptioningInstructions are for generating VLMs. Failed
// videos are returned with the reason and get no caption.
func WriteCaptions(ctx context.Context, m FrameCaptioner, source string, fs *FrameSampler, videos []string) ([]DenseCaption, []FailedVideo, error) {
	out := make([]DenseCaption, len(videos))
	ok := make([]bool, len(videos))
	var failed []FailedVideo
	err := fs.Each(ctx, videos, func(i int, frames []imageprep.Frame) error {
		caps, err := m.CaptionFrames(ctx, frames)
		if err != nil {
			return fmt.Errorf("caption the frames of %s: %w", videos[i], err)
		}
		texts := make([]string, len(caps))
		for k, c := range caps {
			texts[k] = c.Text
		}
		caption := JoinFrameCaptions(texts)
		out[i] = DenseCaption{Pair: source + "/" + videos[i], Video: videos[i], Source: source, Caption: caption, Sentences: Split(caption), Frames: len(frames)}
		ok[i] = true
		return nil
	}, func(i int, err error) error {
		failed = append(failed, FailedVideo{videos[i], err})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return captioned(out, ok), failed, nil
}

// JoinFrameCaptions makes one caption of per-frame captions: white space
// made single, empty ones and repeats of the previous one dropped, each
// capitalised and ended with a period unless it already ends a sentence.
func JoinFrameCaptions(texts []string) string {
	var parts []string
	prev := ""
	for _, t := range texts {
		t = strings.Join(strings.Fields(t), " ")
		t = strings.TrimRight(t, ",;: ")
		if t == "" || strings.EqualFold(t, prev) {
			continue
		}
		prev = t
		r, n := utf8.DecodeRuneInString(t)
		t = string(unicode.ToUpper(r)) + t[n:]
		if last, _ := utf8.DecodeLastRuneInString(t); !isTerminal(last) {
			t += "."
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// captionLine is the JSON of one captions line.
type captionLine struct {
	Pair      *string   `json:"pair"`
	Video     *string   `json:"video"`
	Source    *string   `json:"source"`
	Caption   *string   `json:"caption"`
	Sentences *[]string `json:"sentences"`
}

// ReadCaptions reads captions JSONL as WriteCaptions and CaptionChat
// write them ({"pair", "video", "source", "caption", "sentences"}) into
// unlabelled pairs, every sentence Unknown, for a verifier to judge. A
// line without "sentences" is split from "caption"; without "pair" the
// pair is source/video. Errors are *harness.ParseError values naming the
// file, line and field.
func ReadCaptions(r io.Reader, name string) ([]*Pair, error) {
	var pairs []*Pair
	seen := map[string]int{}
	err := eachLine(r, name, func(line int, data []byte) error {
		fail := func(field string, err error) error {
			return &harness.ParseError{File: name, Line: line, Field: field, Err: err}
		}
		var l captionLine
		if err := json.Unmarshal(data, &l); err != nil {
			pe := jsonFieldError(err)
			pe.File, pe.Line = name, line
			return pe
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"video", l.Video}, {"source", l.Source}} {
			if f.v == nil {
				return fail(f.name, harness.ErrMissingField)
			}
			if strings.TrimSpace(*f.v) == "" {
				return fail(f.name, harness.ErrEmptyField)
			}
		}
		p := &Pair{ID: *l.Source + "/" + *l.Video, Video: *l.Video, Source: *l.Source, File: name, Line: line}
		if l.Pair != nil && strings.TrimSpace(*l.Pair) != "" {
			p.ID = *l.Pair
		}
		var texts []string
		switch {
		case l.Sentences != nil:
			texts = *l.Sentences
		case l.Caption != nil:
			texts = Split(*l.Caption)
		default:
			return fail("sentences", fmt.Errorf("%w: give sentences or caption", harness.ErrMissingField))
		}
		if len(texts) == 0 {
			return fail("sentences", fmt.Errorf("%w: the caption has no sentence", harness.ErrEmptyField))
		}
		for _, t := range texts {
			p.Sentences = append(p.Sentences, Sentence{Text: t, Label: Unknown})
		}
		if first, dup := seen[p.ID]; dup {
			return fail("pair", fmt.Errorf("%w: %q is also on line %d", harness.ErrDuplicateID, p.ID, first))
		}
		seen[p.ID] = line
		pairs = append(pairs, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: the file holds no captions", harness.ErrNoItems)}
	}
	return pairs, nil
}

// captioned keeps the captions of the videos that were captioned (ok), in
// video order.
func captioned(out []DenseCaption, ok []bool) []DenseCaption {
	var done []DenseCaption
	for i, c := range out {
		if ok[i] {
			done = append(done, c)
		}
	}
	return done
}
