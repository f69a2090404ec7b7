package vidomni

import (
	"context"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/served"
)

// servedVerifier is a served vlm_reader as VidOmni's letter verifier
// (LetterVLM): the same client, frames and protocol as the audit's
// served readers (models/served), so that a manifest that serves vlm_reader
// verifies through its server as it audits.
type servedVerifier struct {
	vlm  *served.VLM
	name string
}

// openServedVerifier opens the served vlm_reader entry spec of m, its API
// key read from the variable the entry names. Nothing is stored between
// runs: verify keeps no cache of its ONNX answers either.
func openServedVerifier(m *models.Manifest, spec models.RoleSpec, env Env) (*servedVerifier, error) {
	cfg, err := served.ConfigFor(m, models.RoleVLMReader, 0, spec, env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	cfg.ParseReply = answer.Choice
	v, err := served.NewVLM(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	return &servedVerifier{vlm: v, name: served.NameWording(string(models.RoleVLMReader), cfg.Server, cfg.Wording)}, nil
}

// Frames encodes the frames for the server (served.VLM.Frames).
func (s *servedVerifier) Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	return s.vlm.Frames(ctx, frames)
}

// Score asks the server each sentence's question. VidOmni's prompt
// (VLMQuestion: the paper's verification prompt, the question on
// one sentence, its two lettered labels) is put in the harness's reader
// form, which the served readers read back into the authors' message
// (served.VLM): the verification prompt and the question as the question,
// the labels as the options. A sentence the server failed after its
// retries is an error: verify has no per-pair failure to give it, and a
// verdict without it would be a guess.
func (s *servedVerifier) Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error) {
	asked := make([]models.VLMPrompt, len(prompts))
	for i, p := range prompts {
		parts, err := readerForm(p)
		if err != nil {
			return nil, err
		}
		asked[i] = models.VLMPrompt{Text: p.Text, Images: p.Images, Options: p.Options, Parts: parts}
	}
	rows, err := s.vlm.Score(ctx, asked)
	if err != nil {
		return nil, err
	}
	for k, r := range rows {
		if r == nil {
			return nil, fmt.Errorf("sentence %d: the vlm_reader's server failed its question after the retries: %v", k+1, s.vlm.Stats().FirstError())
		}
	}
	return rows, nil
}

// readerForm reads one of VidOmni's VLM prompts (the images, a newline,
// then VLMQuestion) into the parts a served reader asks (letters.Parts of
// the visual kind): the question, and as the options the last p.Options
// lines before the cue, "A. ", "B. ", ... in turn, without their letters.
func readerForm(p models.VLMPrompt) (letters.Parts, error) {
	images := strings.Repeat(models.ImagePlaceholder, p.Images.N)
	body, ok := strings.CutPrefix(p.Text, images)
	if !ok {
		return letters.Parts{}, fmt.Errorf("served vlm_reader: a verification prompt without its %d images first", p.Images.N)
	}
	body = strings.TrimSuffix(strings.TrimSpace(body), "Answer:")
	lines := strings.Split(strings.TrimRight(body, "\n "), "\n")
	n := p.Options
	if n < 2 || len(lines) <= n {
		return letters.Parts{}, fmt.Errorf("served vlm_reader: a verification prompt of %d lines for %d options", len(lines), n)
	}
	opts := lines[len(lines)-n:]
	for j, o := range opts {
		if !strings.HasPrefix(o, fmt.Sprintf("%c. ", 'A'+j)) {
			return letters.Parts{}, fmt.Errorf("served vlm_reader: verification prompt line %q is not option %c", o, 'A'+j)
		}
	}
	question := strings.TrimSpace(strings.Join(lines[:len(lines)-n], "\n"))
	texts := make([]string, n)
	for j, o := range opts {
		texts[j] = o[3:]
	}
	return letters.Parts{Kind: letters.KindVisual, Question: question, Options: texts, Frames: p.Images.N}, nil
}

// stats is what the server was asked, as the audit's stages.json says it
// per served role.
func (s *servedVerifier) stats() *ServedStats {
	return &ServedStats{Name: s.name, StatsSnapshot: s.vlm.Stats().Snapshot()}
}
