package run

import (
	"io"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// The embedding outputs of a run: one float32 row per item, in the order of
// items.parquet, so that screening (harness/screen) and selection read them
// without the models. A row of zeros marks an item that has none (its video
// failed). The frame files are written only when a video level ran.
const (
	// QuestionNPY holds the question embeddings the near-duplicate search
	// compared (the run's embedder: text_embed with a models directory, else
	// the lexical embedder fitted on each benchmark's texts).
	QuestionNPY = "question.npy"
	// CentreFrameNPY holds the image_text embedding of each item's middle
	// frame: the centre frame the frame level reads, or, in a run of the
	// order level alone, the middle one of its bag of frames.
	CentreFrameNPY = "centre_frame.npy"
	// MeanFrameNPY holds the unit mean image_text embedding of each item's
	// uniform frames (the v_i of the effective size).
	MeanFrameNPY = "mean_frame.npy"
)

// embeddingOutputs lists the embedding files of the run and their writers.
func (a *audit) embeddingOutputs() []output {
	outs := []output{{QuestionNPY, npyWriter(a.question)}}
	if a.visual == nil {
		return outs
	}
	var centre, mean *kernels.Matrix
	for i, v := range a.visual {
		row := v.Centre
		if row == nil && v.Bag != nil && v.Bag.Rows > 0 {
			row = v.Bag.Row(v.Bag.Rows / 2)
		}
		if row != nil {
			if centre == nil {
				centre = kernels.NewMatrix(len(a.items), len(row))
			}
			copy(centre.Row(i), row)
		}
		if i < len(a.meanFrames) && a.meanFrames[i] != nil {
			if mean == nil {
				mean = kernels.NewMatrix(len(a.items), len(a.meanFrames[i]))
			}
			copy(mean.Row(i), a.meanFrames[i])
		}
	}
	if centre != nil {
		outs = append(outs, output{CentreFrameNPY, npyWriter(centre)})
	}
	if mean != nil {
		outs = append(outs, output{MeanFrameNPY, npyWriter(mean)})
	}
	return outs
}

// An output is one file of the run directory and the function that writes it.
type output struct {
	name  string
	write func(io.Writer) error
}

func npyWriter(m *kernels.Matrix) func(io.Writer) error {
	return func(w io.Writer) error { return npy.Write(w, m, "<f4") }
}
