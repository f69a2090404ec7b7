package vidomni

import (
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// sentenceRow is one row of sentences.parquet: one sentence as one
// verifier judged it.
type sentenceRow struct {
	Pair       string  `parquet:"pair"`
	Video      string  `parquet:"video"`
	Source     string  `parquet:"source"`
	Type       int32   `parquet:"type"`
	Duration   float64 `parquet:"duration"` // seconds; 0 when the labels gave a bracket
	Bracket    string  `parquet:"bracket"`
	Sentence   int32   `parquet:"sentence"` // 1-based, the k of sentence_k
	Text       string  `parquet:"text"`
	Label      string  `parquet:"label"`
	Categories string  `parquet:"categories"` // comma-separated
	Verifier   string  `parquet:"verifier"`
	// Predicted is 1 (flagged Incorrect), 0, or -1 when the verifier's
	// reply could not be parsed or it gave no verdict on the pair
	// (--allow-missing).
	Predicted int32 `parquet:"predicted"`
	// Scored is false for Unknown sentences, which scoring leaves out.
	Scored bool `parquet:"scored"`
}

func appendRows(rows []sentenceRow, verifier string, j judgement) []sentenceRow {
	for i, st := range j.pair.Sentences {
		pred := int32(-1)
		if j.labels != nil {
			pred = int32(j.labels[i])
		}
		rows = append(rows, sentenceRow{
			Pair: j.pair.ID, Video: j.pair.Video, Source: j.pair.Source, Type: int32(j.pair.Type),
			Duration: j.pair.Duration, Bracket: j.pair.Bracket, Sentence: int32(i + 1), Text: st.Text,
			Label: st.Label, Categories: strings.Join(st.Categories, ","), Verifier: verifier,
			Predicted: pred, Scored: st.Label != Unknown,
		})
	}
	return rows
}

// WriteParquet writes sentences.parquet: one row per sentence and
// verifier, verifiers in name order, pairs in the labels' order, so that
// pandas, polars or DuckDB can slice the results any other way.
func (s *Scores) WriteParquet(w io.Writer) error {
	pw := parquet.NewGenericWriter[sentenceRow](w, parquet.Compression(&parquet.Zstd))
	var rows []sentenceRow
	for _, name := range s.names {
		for _, j := range s.judged[name] {
			rows = appendRows(rows[:0], name, j)
			if _, err := pw.Write(rows); err != nil {
				return fmt.Errorf("sentences table: %w", err)
			}
		}
	}
	return pw.Close()
}
