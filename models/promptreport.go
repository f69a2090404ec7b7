package models

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // frames given as JPEG
	_ "image/png"  // frames given as PNG
	"os"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
)

// A PromptReport is what `vidscreen models prompt` prints of one item on a
// reader: the exact text the model reads, its token ids (-1 for each row of
// an image's features) and the letters' log-probabilities, so that a user
// can hold an export against their own reference (transformers'
// apply_chat_template and the model's logits).
type PromptReport struct {
	Role   Role   `json:"role"`
	Prompt string `json:"prompt"`
	IDs    []int  `json:"ids"`
	// Letters are log p(letter) at the answer position, A for the first
	// option (the variants of a letter merged).
	Letters map[string]float64 `json:"letters"`
	// Wording names the wording (letters.Wording.ID); ChatTemplate the
	// file the chat template came from, "" for the plain prompt.
	Wording      string `json:"wording"`
	ChatTemplate string `json:"chat_template"`
}

// promptItem is the item file of `models prompt`: what letters.Parts holds.
type promptItem struct {
	Kind     letters.Kind `json:"kind"`
	Question string       `json:"question"`
	Options  []string     `json:"options"`
	Context  string       `json:"context"`
	Captions []string     `json:"captions"`
}

// ReadPromptItem reads an item file: a JSON object with "question",
// "options" and optionally "kind" (letters.Kinds; default blind for a text
// reader, visual with frames), "context" and "captions". A field it does
// not know, or one of the wrong type, is an error naming the file and the
// field.
func ReadPromptItem(path string, frames int) (letters.Parts, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return letters.Parts{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var it promptItem
	if err := dec.Decode(&it); err != nil {
		return letters.Parts{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(it.Options) < 2 || len(it.Options) > MaxOptions {
		return letters.Parts{}, fmt.Errorf("%s: options: %d options; want 2 to %d", path, len(it.Options), MaxOptions)
	}
	if it.Kind == "" {
		it.Kind = letters.KindBlind
		if frames > 0 {
			it.Kind = letters.KindVisual
		}
	}
	known := false
	for _, k := range letters.Kinds {
		known = known || k == it.Kind
	}
	if !known {
		return letters.Parts{}, fmt.Errorf("%s: kind: %q is not one of %v", path, it.Kind, letters.Kinds)
	}
	return letters.Parts{Kind: it.Kind, Question: it.Question, Options: it.Options, Context: it.Context, Captions: it.Captions, Frames: frames}, nil
}

// ExplainPrompt opens role (lm_reader, or vlm_reader and screen_reader with
// frames) of m on dev and reports what it reads and answers for parts.
func (r *Runtime) ExplainPrompt(ctx context.Context, m *Manifest, role Role, parts letters.Parts, frames []imageprep.Frame, dev gpu.Device) (PromptReport, error) {
	rep := PromptReport{Role: role, Letters: map[string]float64{}}
	var scores []float64
	var prompting Prompting
	switch role {
	case RoleLMReader:
		if len(frames) > 0 {
			return rep, fmt.Errorf("lm_reader reads no frames")
		}
		s, err := r.OpenLetterScorer(m, dev)
		if err != nil {
			return rep, err
		}
		defer s.Close()
		prompting = s.Prompting
		p := letters.New(parts)
		if rep.Prompt, _, err = prompting.Text(p); err != nil {
			return rep, err
		}
		if rep.IDs, err = s.Encode(p); err != nil {
			return rep, err
		}
		out, err := s.Score(ctx, []letters.Prompt{p})
		if err != nil {
			return rep, err
		}
		scores = out[0]
	case RoleVLMReader, RoleScreenReader:
		v, err := r.OpenVLMRole(m, role, dev)
		if err != nil {
			return rep, err
		}
		defer v.Close()
		prompting = v.Prompting
		images, err := v.Frames(ctx, frames)
		if err != nil {
			return rep, err
		}
		parts.Frames = images.N
		p := VLMPrompt{Images: images, Options: len(parts.Options), Parts: parts}
		if rep.Prompt, _, err = prompting.render(parts, images.N); err != nil {
			return rep, err
		}
		pieces, _, err := v.layout(p)
		if err != nil {
			return rep, err
		}
		for _, pc := range pieces {
			if pc.ids != nil {
				rep.IDs = append(rep.IDs, pc.ids...)
				continue
			}
			for range v.imageRows {
				rep.IDs = append(rep.IDs, -1)
			}
		}
		out, err := v.Score(ctx, []VLMPrompt{p})
		if err != nil {
			return rep, err
		}
		scores = out[0]
	default:
		return rep, fmt.Errorf("models prompt: role %s is not a reader (lm_reader, vlm_reader or screen_reader)", role)
	}
	rep.Wording = prompting.wording().ID
	if prompting.Chat != nil {
		rep.ChatTemplate = prompting.Chat.Source
	}
	for j, v := range scores {
		rep.Letters[letters.LetterName(j)] = v
	}
	return rep, nil
}

// PromptDir is `vidscreen models prompt`: it reads dir's manifest, the
// item file and the frames (PNG or JPEG, at their full resolution, each
// preprocessed as the role's preprocessor_config.json says) and reports
// what role reads and answers, on the first device of opts.
func PromptDir(ctx context.Context, dir string, opts RuntimeOptions, role Role, itemPath string, framePaths []string) (PromptReport, error) {
	m, err := LoadManifest(dir)
	if err != nil {
		return PromptReport{}, err
	}
	parts, err := ReadPromptItem(itemPath, len(framePaths))
	if err != nil {
		return PromptReport{}, err
	}
	frames := make([]imageprep.Frame, len(framePaths))
	for i, p := range framePaths {
		if frames[i], err = readFrame(p); err != nil {
			return PromptReport{}, err
		}
	}
	rt, err := NewRuntime(opts)
	if err != nil {
		return PromptReport{}, err
	}
	return rt.ExplainPrompt(ctx, m, role, parts, frames, rt.Devices()[0])
}

// readFrame decodes a PNG or JPEG file into RGB rows.
func readFrame(path string) (imageprep.Frame, error) {
	f, err := os.Open(path)
	if err != nil {
		return imageprep.Frame{}, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return imageprep.Frame{}, fmt.Errorf("%s: %w", path, err)
	}
	b := img.Bounds()
	fr := imageprep.Frame{Width: b.Dx(), Height: b.Dy(), Pix: make([]byte, 3*b.Dx()*b.Dy())}
	for y := range fr.Height {
		for x := range fr.Width {
			c := color.RGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.RGBA)
			o := 3 * (y*fr.Width + x)
			fr.Pix[o], fr.Pix[o+1], fr.Pix[o+2] = c.R, c.G, c.B
		}
	}
	return fr, nil
}
