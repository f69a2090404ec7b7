package embedrows

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// Request names the role and the inputs: Texts, or (image_text only)
// Images, one path per line.
type Request struct {
	Role   models.Role
	Texts  []Line
	Images []Line
	Device gpu.Device
}

// imageChunk bounds the decoded images held at once: full-resolution
// frames are large, and each chunk is preprocessed and embedded before the
// next is read.
const imageChunk = 16

// Embed opens req.Role from the manifest on req.Device and returns one
// unit row per input, in input order: the text tower's (image_text) or the
// encoder's pooled, normalised vector (text_embed, dup_confirm) for texts,
// and the image tower's for images, each image preprocessed from its full
// resolution as the role's preprocessor_config.json says.
func Embed(ctx context.Context, rt *models.Runtime, man *models.Manifest, req Request) (*kernels.Matrix, error) {
	if (len(req.Texts) == 0) == (len(req.Images) == 0) {
		return nil, fmt.Errorf("embed: give texts or images, not both or neither")
	}
	switch req.Role {
	case models.RoleImageText:
		it, err := rt.OpenImageText(man, req.Device)
		if err != nil {
			return nil, err
		}
		defer it.Close()
		if len(req.Texts) > 0 {
			return embedTexts(ctx, it.EmbedTexts, req.Texts)
		}
		return embedImages(ctx, it, req.Images)
	case models.RoleTextEmbed, models.RoleDupConfirm:
		if len(req.Images) > 0 {
			return nil, fmt.Errorf("embed: %s embeds texts; only image_text takes images", req.Role)
		}
		e, err := rt.OpenTextEncoder(man, req.Role, req.Device)
		if err != nil {
			return nil, err
		}
		defer e.Close()
		return embedTexts(ctx, e.Embed, req.Texts)
	}
	return nil, fmt.Errorf("embed: role %q has no embeddings; want image_text, text_embed or dup_confirm", req.Role)
}

func embedTexts(ctx context.Context, embed func(context.Context, []string) ([][]float32, error), lines []Line) (*kernels.Matrix, error) {
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.Text
	}
	rows, err := embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed %s: %w", lines[0].File, err)
	}
	return matrix(rows), nil
}

func embedImages(ctx context.Context, it *models.ImageText, lines []Line) (*kernels.Matrix, error) {
	var rows [][]float32
	for lo := 0; lo < len(lines); lo += imageChunk {
		part := lines[lo:min(len(lines), lo+imageChunk)]
		frames := make([]imageprep.Frame, len(part))
		for i, l := range part {
			f, err := LoadImage(l.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l, err)
			}
			frames[i] = f
		}
		vecs, err := it.EmbedFrames(ctx, frames)
		if err != nil {
			return nil, fmt.Errorf("%s to %s: %w", part[0], part[len(part)-1], err)
		}
		rows = append(rows, vecs...)
	}
	return matrix(rows), nil
}

func matrix(rows [][]float32) *kernels.Matrix {
	m := kernels.NewMatrix(len(rows), len(rows[0]))
	for i, r := range rows {
		copy(m.Row(i), r)
	}
	return m
}
