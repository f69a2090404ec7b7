package textembed

import (
	"fmt"

	"github.com/vidscreen/vidscreen/kernels"
)

// A NonFiniteError is what an embedder returns when the model gave a NaN or
// an infinity for some of the texts. A caller that can fail those texts
// alone (the audit fails their items, with the reason) takes Embeddings,
// which holds every row of the call with the rows of Rows set to zero; any
// other caller refuses the output as for any error.
type NonFiniteError struct {
	Model string
	// Rows are the indices, ascending, of the texts whose embedding was
	// not finite; Texts are those texts.
	Rows  []int
	Texts []string
	// Embeddings is the whole output, those rows zeroed.
	Embeddings *kernels.Matrix
	// Err is the first bad value (a *kernels.NonFiniteError).
	Err error
}

func (e *NonFiniteError) Error() string {
	more := ""
	if len(e.Rows) > 1 {
		more = fmt.Sprintf(" (and %d more texts)", len(e.Rows)-1)
	}
	return fmt.Sprintf("%s: the embedding of %.60q is not finite%s: %v", e.Model, e.Texts[0], more, e.Err)
}

func (e *NonFiniteError) Unwrap() error { return e.Err }
