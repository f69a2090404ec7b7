package vidomni

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// ScoreOptions is everything "vidscreen vidomni score" is asked, as plain
// data: each field is one flag (named in its comment), in the flag's own
// syntax, and the options encode to and from JSON. DefaultScoreOptions
// holds the flags' defaults.
type ScoreOptions struct {
	// Labels is the labels JSONL (--labels).
	Labels string `json:"labels"`
	// Verdicts are the verdicts JSONL files, read in order (--verdicts).
	Verdicts []string `json:"verdicts"`
	// Out is the directory the reports go to (--out).
	Out string `json:"out"`
	// Brackets are the duration brackets, NAME:MAX_SECONDS,...,NAME
	// (--brackets; ParseBrackets).
	Brackets string `json:"brackets"`
	// NoIncorrect scores the pairs without an Incorrect sentence
	// (--no-incorrect: NoIncorrectZero, One or Skip).
	NoIncorrect string `json:"no_incorrect"`
	// Self are VERIFIER=SOURCE: the verifier is that caption source, for
	// the self-verification diagonal (--self).
	Self []string `json:"self,omitempty"`
	// Ensembles are A+B: the ensembles of two verifiers scored (--ensemble;
	// none: every pair).
	Ensembles []string `json:"ensembles,omitempty"`
	// AllowMissing scores a pair a verifier gave no verdict on as 0
	// instead of refusing the verdicts (--allow-missing).
	AllowMissing bool `json:"allow_missing,omitempty"`
}

// DefaultScoreOptions are the flags' defaults: the paper's brackets, a
// pair without an Incorrect sentence scoring 0.
func DefaultScoreOptions() ScoreOptions {
	return ScoreOptions{Brackets: DefaultBrackets, NoIncorrect: NoIncorrectZero}
}

// ScoreFiles reads the labels and verdicts opt names, scores them (Score)
// and writes the reports to opt.Out (Scores.WriteDir). Options that ask
// for something impossible are an *harness.UsageError, checked before any file
// is read; a file that cannot be read or holds a bad line, a verifier
// missing a pair (MissingError) and Score refusing the ensembles opt names
// are harness.ErrBadInput.
func ScoreFiles(opt ScoreOptions) (*Scores, error) {
	scoreOpt, err := opt.options()
	if err != nil {
		return nil, err
	}
	pairs, err := readFile(opt.Labels, ReadLabels)
	if err != nil {
		return nil, err
	}
	var vs []*Verdict
	for _, f := range opt.Verdicts {
		v, err := readFile(f, ReadVerdicts)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v...)
	}
	s, err := Score(pairs, vs, scoreOpt)
	if err != nil {
		var pe *harness.ParseError
		var me *MissingError
		if errors.As(err, &pe) || errors.As(err, &me) || len(opt.Ensembles) > 0 {
			return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
		}
		return nil, err
	}
	if err := s.WriteDir(opt.Out); err != nil {
		return nil, err
	}
	return s, nil
}

// options checks opt and parses its flag syntax into Score's Options.
func (opt ScoreOptions) options() (Options, error) {
	if opt.Labels == "" || len(opt.Verdicts) == 0 || opt.Out == "" {
		return Options{}, &harness.UsageError{Msg: "--labels, --verdicts and --out are required"}
	}
	out := Options{NoIncorrect: opt.NoIncorrect, Self: map[string]string{}, AllowMissing: opt.AllowMissing}
	var err error
	if out.Brackets, err = ParseBrackets(opt.Brackets); err != nil {
		return Options{}, &harness.UsageError{Msg: "--brackets: " + err.Error()}
	}
	if err := checkNoIncorrect(opt.NoIncorrect); err != nil {
		return Options{}, err
	}
	for _, s := range opt.Self {
		v, src, ok := strings.Cut(s, "=")
		if !ok || v == "" || src == "" {
			return Options{}, harness.Usagef("--self %q: want VERIFIER=SOURCE", s)
		}
		out.Self[v] = src
	}
	for _, e := range opt.Ensembles {
		a, b, ok := strings.Cut(e, "+")
		if !ok || a == "" || b == "" {
			return Options{}, harness.Usagef("--ensemble %q: want A+B", e)
		}
		out.Ensembles = append(out.Ensembles, [2]string{a, b})
	}
	return out, nil
}
