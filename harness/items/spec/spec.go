package spec

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Spec describes one benchmark's annotation files.
type Spec struct {
	// Name is the benchmark's name: every item's benchmark, and the stem of
	// ids the spec does not give (<name>_<index>).
	Name string `yaml:"name"`
	// Files are the annotation files, as globs relative to the spec's
	// folder. Files given on the command line replace them.
	Files []string `yaml:"files"`
	// Records is the path of the record list inside a JSON file: keys
	// joined by dots, "*" for every key or element ("data.*.*"). The last
	// key a "*" took is the record's __key. Empty: the file's top-level
	// list, or the one list of objects a top-level object holds.
	Records string `yaml:"records"`
	Fields  Fields `yaml:"fields"`
	// AnswerType says how the answer field names the gold: auto (a letter,
	// an option's text, or an index read with --index-base), letter,
	// index0, index1 or text.
	AnswerType string `yaml:"answer_type"`
	// Filters keep the records that pass all of them, applied before the
	// records are numbered.
	Filters []Filter `yaml:"filters"`
	// Keep "mcq" keeps only records with options and a single-letter or
	// index gold (benchmarks that mix formats); other records are dropped,
	// each with its reason.
	Keep string `yaml:"keep"`
	// Dedupe drops a record that repeats an earlier record's (video,
	// question) pair.
	Dedupe bool `yaml:"dedupe"`
	// Group is the capability group of every item, when the fields give
	// none.
	Group string `yaml:"group"`
	// Meta is copied into every item's meta (year, licence, citation).
	Meta map[string]any `yaml:"meta"`
	// Language and RequiresAudio are declarations for the eligibility
	// checks.
	Language      string `yaml:"language"`
	RequiresAudio bool   `yaml:"requires_audio"`

	// dir is the spec file's folder, which Files are relative to.
	dir string
}

// Fields names where each part of an item comes from. Each is a field name
// ("question"), a nested path ("metadata.question_type") or a template
// ("{video_uid}.mp4", "{rearranged_id|int}.mp4").
type Fields struct {
	ID       string `yaml:"id"`
	Question string `yaml:"question"`
	// Options is the field holding all options: a list, a dict (values in
	// key order) or a string holding a list.
	Options string `yaml:"options"`
	// OptionFields are one field per option ([a0, a1, a2, a3, a4]).
	OptionFields []string `yaml:"option_fields"`
	Answer       string   `yaml:"answer"`
	Video        string   `yaml:"video"`
	// Subtask is the item's task (category, question type).
	Subtask  string `yaml:"subtask"`
	Duration string `yaml:"duration"`
	Start    string `yaml:"start"`
	End      string `yaml:"end"`
	Group    string `yaml:"group"`
}

// A Filter keeps a record by one field's value. Exactly one test is set.
type Filter struct {
	Field   string   `yaml:"field"`
	Equals  *string  `yaml:"equals"`
	In      []string `yaml:"in"`
	NotIn   []string `yaml:"not_in"`
	Truthy  *bool    `yaml:"truthy"`
	Matches string   `yaml:"matches"`

	re *regexp.Regexp
}

// ErrSpec marks a spec that cannot be used.
var ErrSpec = errors.New("bad adapter spec")

// Load reads the spec at path (YAML, or JSON, which YAML reads too).
func Load(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	s, err := Parse(b, path)
	if err != nil {
		return nil, err
	}
	s.dir = filepath.Dir(path)
	return s, nil
}

// Parse reads a spec from b; name is the file it came from, for errors.
// Unknown keys are refused (a misspelt key would otherwise be ignored and
// its field guessed).
func Parse(b []byte, name string) (*Spec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrSpec, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrSpec, err)
	}
	s.dir = "."
	return &s, nil
}

// answerTypes are the answer_type values, and the index base each fixes
// (-1: none).
var answerTypes = map[string]int{"": -1, "auto": -1, "letter": -1, "text": -1, "index0": 0, "index1": 1}

func (s *Spec) check() error {
	if strings.TrimSpace(s.Name) == "" {
		return errors.New("name: required (the benchmark's name)")
	}
	if _, ok := answerTypes[s.AnswerType]; !ok {
		return fmt.Errorf("answer_type: %q: want auto, letter, index0, index1 or text", s.AnswerType)
	}
	if s.Keep != "" && s.Keep != "mcq" {
		return fmt.Errorf("keep: %q: want mcq", s.Keep)
	}
	if s.Fields.Options != "" && len(s.Fields.OptionFields) > 0 {
		return errors.New("fields: options and option_fields both given: name one")
	}
	for name, t := range map[string]string{
		"id": s.Fields.ID, "question": s.Fields.Question, "options": s.Fields.Options, "answer": s.Fields.Answer,
		"video": s.Fields.Video, "subtask": s.Fields.Subtask, "duration": s.Fields.Duration,
		"start": s.Fields.Start, "end": s.Fields.End, "group": s.Fields.Group,
	} {
		if _, err := compile(t); err != nil {
			return fmt.Errorf("fields.%s: %v", name, err)
		}
	}
	for i, f := range s.Fields.OptionFields {
		if _, err := compile(f); err != nil {
			return fmt.Errorf("fields.option_fields[%d]: %v", i, err)
		}
	}
	for i := range s.Filters {
		if err := s.Filters[i].compile(); err != nil {
			return fmt.Errorf("filters[%d]: %v", i, err)
		}
	}
	return nil
}
