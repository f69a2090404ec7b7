package screen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// The files of a screen directory.
const (
	ScreenParquet    = "screen.parquet"
	AmbiguityParquet = "ambiguity.parquet"
	ScreenJSON       = "screen.json"
	ScreenMarkdown   = "screen.md"
	ScreenHTML       = "screen.html"
)

// screenFile is the layout of screen.json.
type screenFile struct {
	Vidscreen string `json:"vidscreen"`
	*Screen
}

// An ambiguityRow is one row of ambiguity.parquet: an item with at least one
// ambiguity flag, with what a reviewer needs beside it.
type ambiguityRow struct {
	ID          string   `parquet:"id"`
	Benchmark   string   `parquet:"benchmark"`
	Video       string   `parquet:"video"`
	Task        string   `parquet:"task"`
	Group       string   `parquet:"group"`
	Question    string   `parquet:"question"`
	Options     []string `parquet:"options,list"`
	Answer      int32    `parquet:"answer"`
	Consistency bool     `parquet:"consistency"`
	Redundancy  bool     `parquet:"redundancy"`
	Sensitivity bool     `parquet:"sensitivity"`
	Restored    bool     `parquet:"restored"`
	Agreement   float64  `parquet:"agreement"`
	Diagnostics int32    `parquet:"diagnostics_solved"`
	// SolvedBy lists the diagnostic tests that solve the item, Choices what
	// each diagnostic test that answered (scored, not abstaining) chose.
	SolvedBy []string `parquet:"solved_by,list"`
	Choices  []choice `parquet:"choices,list"`
	Kept     bool     `parquet:"kept"`
}

type choice struct {
	Attacker string `parquet:"attacker"`
	Choice   int32  `parquet:"choice"`
}

// Write stores s in dir (created if needed): screen.parquet (one Row per
// item, in the run's item order), ambiguity.parquet (the rows with an
// ambiguity flag), screen.json (options, attackers, summaries, consensus),
// screen.md and screen.html (the same for people), and the embedding files
// whose rows Row.Embedding indexes. Each file is written through a
// temporary file and a rename.
func (s *Screen) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("screen: %w", err)
	}
	outs := []struct {
		name  string
		write func(io.Writer) error
	}{
		{ScreenParquet, s.writeParquet},
		{AmbiguityParquet, s.writeAmbiguity},
		{SensitivityJSONL, s.writeSensitivity},
		{ScreenJSON, s.writeJSON},
		{ScreenMarkdown, s.WriteMarkdown},
		{ScreenHTML, s.WriteHTML},
	}
	for _, m := range []struct {
		name string
		m    *kernels.Matrix
	}{{QuestionNPY, s.Embeddings.Question}, {CentreFrameNPY, s.Embeddings.CentreFrame}, {MeanFrameNPY, s.Embeddings.MeanFrame}} {
		if m.m == nil {
			os.Remove(filepath.Join(dir, m.name)) // a stale one from an earlier screen would mislead
			continue
		}
		outs = append(outs, struct {
			name  string
			write func(io.Writer) error
		}{m.name, func(w io.Writer) error { return npy.Write(w, m.m, npy.Float32) }})
	}
	for _, o := range outs {
		if err := atomicfile.Write(filepath.Join(dir, o.name), o.write); err != nil {
			return err
		}
	}
	return nil
}

func (s *Screen) writeParquet(w io.Writer) error {
	pw := parquet.NewGenericWriter[Row](w, parquet.Compression(&parquet.Zstd))
	const batch = 1024
	for lo := 0; lo < len(s.Rows); lo += batch {
		if _, err := pw.Write(s.Rows[lo:min(lo+batch, len(s.Rows))]); err != nil {
			return fmt.Errorf("%s: %w", ScreenParquet, err)
		}
	}
	return pw.Close()
}

func (s *Screen) writeAmbiguity(w io.Writer) error {
	pw := parquet.NewGenericWriter[ambiguityRow](w, parquet.Compression(&parquet.Zstd))
	var rows []ambiguityRow
	for i := range s.Rows {
		r := &s.Rows[i]
		if !r.Ambiguous() {
			continue
		}
		a := ambiguityRow{ID: r.ID, Benchmark: r.Benchmark, Video: r.Video, Task: r.Task, Group: r.Group, Question: r.Question,
			Options: r.Options, Answer: r.Answer, Consistency: r.Consistency, Redundancy: r.Redundancy, Sensitivity: r.Sensitivity, Restored: r.Restored,
			Agreement: r.Agreement, Diagnostics: r.Diagnostics, SolvedBy: []string{}, Choices: []choice{}, Kept: r.Kept}
		for k, v := range r.Verdicts {
			if s.Attackers[k].Test == "" {
				continue
			}
			if v.Solved {
				a.SolvedBy = append(a.SolvedBy, v.Attacker)
			}
			if v.Scored && !v.Abstained && v.Choice >= 0 {
				a.Choices = append(a.Choices, choice{v.Attacker, v.Choice})
			}
		}
		rows = append(rows, a)
	}
	if _, err := pw.Write(rows); err != nil {
		return fmt.Errorf("%s: %w", AmbiguityParquet, err)
	}
	return pw.Close()
}

func (s *Screen) writeJSON(w io.Writer) error {
	b, err := json.MarshalIndent(screenFile{Vidscreen: harness.Version, Screen: s}, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", ScreenJSON, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read loads the screen Write stored in dir.
func Read(dir string) (*Screen, error) {
	b, err := os.ReadFile(filepath.Join(dir, ScreenJSON))
	if err != nil {
		return nil, fmt.Errorf("read screen: %w", err)
	}
	s := &Screen{}
	if err := json.Unmarshal(b, &screenFile{Screen: s}); err != nil {
		return nil, fmt.Errorf("read screen: %s: %w", filepath.Join(dir, ScreenJSON), err)
	}
	path := filepath.Join(dir, ScreenParquet)
	if s.Rows, err = parquet.ReadFile[Row](path); err != nil {
		return nil, fmt.Errorf("read screen: %s: %w", path, err)
	}
	for i := range s.Rows {
		if len(s.Rows[i].Verdicts) != len(s.Attackers) {
			return nil, fmt.Errorf("read screen: %s: row %d has %d verdicts for the %d attackers of %s", path, i, len(s.Rows[i].Verdicts), len(s.Attackers), ScreenJSON)
		}
	}
	for _, m := range []struct {
		name string
		dst  **kernels.Matrix
	}{{QuestionNPY, &s.Embeddings.Question}, {CentreFrameNPY, &s.Embeddings.CentreFrame}, {MeanFrameNPY, &s.Embeddings.MeanFrame}} {
		x, err := npy.ReadFile(filepath.Join(dir, m.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read screen: %w", err)
		}
		if x.Rows != len(s.Rows) {
			return nil, fmt.Errorf("read screen: %s: %d rows for %d items", filepath.Join(dir, m.name), x.Rows, len(s.Rows))
		}
		*m.dst = x
	}
	return s, nil
}
