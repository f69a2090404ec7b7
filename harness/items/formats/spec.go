package formats

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/spec"
)

// Spec reads a benchmark through an adapter spec (package spec): the
// first file is the spec, YAML or JSON; files after it, when given,
// replace the annotation files it names.
func Spec() items.Format {
	return items.Format{
		Name:   "spec",
		Title:  "an adapter spec for a benchmark without an importer",
		Files:  "SPEC.yaml (or .json) [ANNOTATIONS...]: files, records, fields, answer_type, filters, keep, dedupe (docs/import.md)",
		Detect: detectSpec,
		Read:   readSpec,
	}
}

// detectSpec claims YAML files: no other layout is YAML, and a JSON spec
// is named as such (`import spec`).
func detectSpec(path string, _ []byte) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

func readSpec(ctx context.Context, paths []string, opt items.Options) (*items.Result, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("spec: want the spec file")
	}
	s, err := spec.Load(paths[0])
	if err != nil {
		return nil, err
	}
	return s.Read(ctx, paths[1:], opt)
}

// Table reads any JSON, JSON Lines, CSV, TSV or Parquet file of records
// whose columns are named as benchmarks usually name them (video,
// question, options or candidates or a0..a4 or A, B, ..., answer,
// task_type, question_id, duration): the fields are guessed by name, and
// each row says which were taken. It never claims a file for auto: a
// guess is what a user asks for.
func Table() items.Format {
	return items.Format{
		Name:  "table",
		Title: "any table or list of records, fields guessed by their names",
		Files: "FILE.json, .jsonl, .csv, .tsv or .parquet with columns such as video, question, options, answer",
		Read:  readTable,
	}
}

func readTable(ctx context.Context, paths []string, opt items.Options) (*items.Result, error) {
	s, chose, err := spec.Guess("", paths)
	if err != nil {
		return nil, err
	}
	res, err := s.Read(ctx, paths, opt)
	if err != nil {
		return nil, err
	}
	for i := range res.Rows {
		res.Rows[i].ItemsFrom = "columns guessed by name (" + chose + ")"
	}
	return res, nil
}
