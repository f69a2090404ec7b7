package vidomni

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// readFixture reads testdata/labels.jsonl and testdata/verdicts.jsonl.
func readFixture(t testing.TB) ([]*Pair, []*Verdict) {
	t.Helper()
	lf, err := os.Open(filepath.Join("testdata", "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	pairs, err := ReadLabels(lf, "labels.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	vf, err := os.Open(filepath.Join("testdata", "verdicts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	verdicts, err := ReadVerdicts(vf, "verdicts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return pairs, verdicts
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func checkMetrics(t *testing.T, what string, got Metrics, p, r, f1 float64, n int) {
	t.Helper()
	if !near(got.Precision, p) || !near(got.Recall, r) || !near(got.F1, f1) || got.Pairs != n {
		t.Errorf("%s: got P %.4f R %.4f F1 %.4f over %d pairs, want P %.4f R %.4f F1 %.4f over %d",
			what, got.Precision, got.Recall, got.F1, got.Pairs, p, r, f1, n)
	}
}

// The fixture, worked by hand (Incorrect positive, Unknown left out):
//
//	p1 (source A, type 1, 60 s short): C, I[Object], I[Action,Order], U
//	   A labels 0,1,0,1   -> TP 1 FP 0 FN 1: P 1, R 1/2, F1 2/3
//	   B reply  0,1,1,0   -> TP 2:           P 1, R 1,   F1 1
//	p2 (source B, type 2, 600 s medium): C, C, I[Illusion]
//	   A reply (fenced) 1,0,1 -> TP 1 FP 1:  P 1/2, R 1, F1 2/3
//	   B reply without sentence_3 -> unparsed, scores 0
//	p3 (source A, type 2, 3600 s long): C, C (no Incorrect sentence)
//	   A labels 0,1 -> FP 1; zero: 0,0,0; one: P 0, R 1 (0/0), F1 0; skip: out
//	   B labels 0,0 -> nothing;  zero: 0,0,0; one: 1,1,1;             skip: out
//	p4 (source B, type 5, "long"): U, U -> left out for everyone
func TestScoreWorkedByHand(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	s, err := Score(pairs, verdicts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, "A", s.Verifiers["A"].Metrics, 0.5, 0.5, 4.0/9, 3)
	checkMetrics(t, "B", s.Verifiers["B"].Metrics, 1.0/3, 1.0/3, 1.0/3, 3)
	if got := s.Verifiers["A"].Unparsed; got != 0 {
		t.Errorf("A unparsed %d, want 0", got)
	}
	if got := s.Verifiers["B"].Unparsed; got != 1 {
		t.Errorf("B unparsed %d, want 1", got)
	}

	checkMetrics(t, "A type 1", s.ByType["A"]["1"], 1, 0.5, 2.0/3, 1)
	checkMetrics(t, "A type 2", s.ByType["A"]["2"], 0.25, 0.5, 1.0/3, 2)
	if _, ok := s.ByType["A"]["5"]; ok {
		t.Error("type 5 has only an all-Unknown pair, yet has a score")
	}
	checkMetrics(t, "A short", s.ByDuration["A"]["short"], 1, 0.5, 2.0/3, 1)
	checkMetrics(t, "A medium", s.ByDuration["A"]["medium"], 0.5, 1, 2.0/3, 1)
	checkMetrics(t, "A long", s.ByDuration["A"]["long"], 0, 0, 0, 1)

	wantCat := map[string]map[string]CategoryRecall{
		"A": {"Object": {1, 1}, "Action": {0, 1}, "Order": {0, 1}, "Illusion": {1, 1}},
		"B": {"Object": {1, 1}, "Action": {1, 1}, "Order": {1, 1}, "Illusion": {0, 1}},
	}
	for v, want := range wantCat {
		if got := s.ByCategory[v]; len(got) != len(want) {
			t.Errorf("%s categories %v, want %v", v, got, want)
		}
		for c, w := range want {
			if got := s.ByCategory[v][c]; got != w {
				t.Errorf("%s %s recall %+v, want %+v", v, c, got, w)
			}
		}
	}

	// The matrix: rows verify, columns wrote; A is source A, B is B.
	checkMetrics(t, "A on A", s.Matrix["A"]["A"].Metrics, 0.5, 0.25, 1.0/3, 2)
	checkMetrics(t, "A on B", s.Matrix["A"]["B"].Metrics, 0.5, 1, 2.0/3, 1)
	checkMetrics(t, "B on A", s.Matrix["B"]["A"].Metrics, 0.5, 0.5, 0.5, 2)
	checkMetrics(t, "B on B", s.Matrix["B"]["B"].Metrics, 0, 0, 0, 1)
	for _, c := range []struct {
		v, src string
		self   bool
	}{{"A", "A", true}, {"A", "B", false}, {"B", "A", false}, {"B", "B", true}} {
		if s.Matrix[c.v][c.src].Self != c.self {
			t.Errorf("matrix %s x %s: self %v, want %v", c.v, c.src, !c.self, c.self)
		}
	}

	// Caption sources (table 1): A wrote p1 (2 of 3 known Incorrect) and
	// p3 (none); B wrote p2 (1 of 3) and p4 (all Unknown, left out).
	if a := s.bySource["A"]; a.pairs != 2 || a.sentences != 5 || a.withIncorrect != 1 || !near(a.shareSum/2, 1.0/3) {
		t.Errorf("source A: %+v", *a)
	}
	if b := s.bySource["B"]; b.pairs != 1 || b.withIncorrect != 1 || !near(b.shareSum, 1.0/3) {
		t.Errorf("source B: %+v", *b)
	}

	// Ensemble A+B: p1 0,1,1,1 -> 1,1,1; p2 A alone (B unparsed) ->
	// 1/2,1,2/3; p3 0,1 -> 0.
	e, ok := s.Ensembles["A+B"]
	if !ok {
		t.Fatalf("no ensemble A+B in %v", s.Ensembles)
	}
	checkMetrics(t, "A+B", e.Metrics, 0.5, 2.0/3, 5.0/9, 3)
	if g := e.Self["A"]; !near(g.SelfF1, 1.0/3) || !near(g.EnsembleF1, 0.5) || g.Pairs != 2 {
		t.Errorf("A self %+v, want self 1/3 -> ensemble 1/2 over 2 pairs", g)
	}
	if g := e.Self["B"]; !near(g.SelfF1, 0) || !near(g.EnsembleF1, 2.0/3) || g.Pairs != 1 {
		t.Errorf("B self %+v, want self 0 -> ensemble 2/3 over 1 pair", g)
	}
}

func TestScoreNoIncorrectPolicies(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	tests := []struct {
		policy   string
		a, b     [3]float64
		pa, pb   int
		ensemble [3]float64
	}{
		{NoIncorrectZero, [3]float64{0.5, 0.5, 4.0 / 9}, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 3, 3, [3]float64{0.5, 2.0 / 3, 5.0 / 9}},
		// one: p3 is A (P 0, R 1, F1 0) and B (1, 1, 1); the
		// unparsed reply of B on p2 still scores 0.
		{NoIncorrectOne, [3]float64{0.5, 2.5 / 3, 4.0 / 9}, [3]float64{2.0 / 3, 2.0 / 3, 2.0 / 3}, 3, 3, [3]float64{0.5, 1, 5.0 / 9}},
		{NoIncorrectSkip, [3]float64{0.75, 0.75, 2.0 / 3}, [3]float64{0.5, 0.5, 0.5}, 2, 2, [3]float64{0.75, 1, 5.0 / 6}},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			s, err := Score(pairs, verdicts, Options{NoIncorrect: tt.policy})
			if err != nil {
				t.Fatal(err)
			}
			checkMetrics(t, "A", s.Verifiers["A"].Metrics, tt.a[0], tt.a[1], tt.a[2], tt.pa)
			checkMetrics(t, "B", s.Verifiers["B"].Metrics, tt.b[0], tt.b[1], tt.b[2], tt.pb)
			checkMetrics(t, "A+B", s.Ensembles["A+B"].Metrics, tt.ensemble[0], tt.ensemble[1], tt.ensemble[2], tt.pa)
		})
	}
	if _, err := Score(pairs, verdicts, Options{NoIncorrect: "half"}); err == nil {
		t.Error("policy half accepted")
	}
}

func TestScoreBracketsAreConfigurable(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	bs, err := ParseBrackets("short:120,medium:700,long:1000,very-long")
	if err == nil {
		_, err = Score(pairs, verdicts, Options{Brackets: bs})
	}
	// p4 names "long", which these brackets have: no error; with
	// brackets lacking "long" the labels are refused at p4's line.
	if err != nil {
		t.Fatal(err)
	}
	bs, _ = ParseBrackets("brief:300,lengthy")
	_, err = Score(pairs, verdicts, Options{Brackets: bs})
	var pe *harness.ParseError
	if !errors.As(err, &pe) || pe.Line != 5 || pe.Field != "duration" {
		t.Fatalf("bracket long unknown: got %v, want labels.jsonl:5 field duration", err)
	}
	s, err := Score(pairs[:3], verdicts[:3], Options{Brackets: bs})
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, "A brief", s.ByDuration["A"]["brief"], 1, 0.5, 2.0/3, 1)
	checkMetrics(t, "A lengthy", s.ByDuration["A"]["lengthy"], 0.25, 0.5, 1.0/3, 2)
}

func TestParseBrackets(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"short", "short:180", "short:180,medium:60,long", "short:x,long", "short:180,long:900", ":180,long", "a:10,a"} {
		if _, err := ParseBrackets(bad); err == nil {
			t.Errorf("ParseBrackets(%q) accepted", bad)
		}
	}
	bs, err := ParseBrackets(DefaultBrackets)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		secs float64
		want string
	}{{4, "short"}, {180, "short"}, {180.5, "medium"}, {240, "medium"}, {1800, "medium"}, {1801, "long"}, {5400, "long"}} {
		if got := bracketOf(bs, c.secs); got != c.want {
			t.Errorf("%g s in %s, want %s", c.secs, got, c.want)
		}
	}
}

func TestVerdictErrorsNameFileLineField(t *testing.T) {
	t.Parallel()
	pairs, _ := readFixture(t)
	tests := []struct {
		name      string
		verdicts  string
		line      int
		field     string
		wantError error
	}{
		{"a pair not in the labels", `{"pair": "p1", "verifier": "A", "labels": [0,0,0,0]}` + "\n" + `{"pair": "p9", "verifier": "A", "labels": [0]}`, 2, "pair", harness.ErrUnknownItem},
		{"a second verdict on a pair", `{"pair": "p2", "verifier": "A", "labels": [0,0,0]}` + "\n\n" + `{"pair": "p2", "verifier": "A", "reply": "{}"}`, 3, "pair", harness.ErrDuplicateID},
		{"labels that do not match the sentences", `{"pair": "p2", "verifier": "A", "labels": [0,1]}`, 1, "labels", harness.ErrBadValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := ReadVerdicts(strings.NewReader(tt.verdicts), "v.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Score(pairs, vs, Options{})
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.File != "v.jsonl" || pe.Line != tt.line || pe.Field != tt.field || !errors.Is(err, tt.wantError) {
				t.Fatalf("got %v, want v.jsonl:%d field %s: %v", err, tt.line, tt.field, tt.wantError)
			}
		})
	}
}

func TestReadersRefuseBadLines(t *testing.T) {
	t.Parallel()
	const good = `"pair": "p", "video": "v", "source": "s", "type": 2, "duration": 30`
	labels := []struct {
		name, line, field string
		err               error
	}{
		{"not JSON", `{"pair": `, "", harness.ErrSyntax},
		{"no pair", `{"video": "v", "source": "s", "type": 1, "duration": 3, "sentences": []}`, "pair", harness.ErrMissingField},
		{"type out of range", `{"pair": "p", "video": "v", "source": "s", "type": 6, "duration": 3, "sentences": [{"text": "a", "label": "Correct"}]}`, "type", harness.ErrBadValue},
		{"type not an integer", `{"pair": "p", "video": "v", "source": "s", "type": 1.5, "duration": 3, "sentences": [{"text": "a", "label": "Correct"}]}`, "type", harness.ErrBadValue},
		{"negative duration", `{"pair": "p", "video": "v", "source": "s", "type": 1, "duration": -3, "sentences": [{"text": "a", "label": "Correct"}]}`, "duration", harness.ErrBadValue},
		{"duration of the wrong type", `{` + `"pair": "p", "video": "v", "source": "s", "type": 1, "duration": [3], "sentences": [{"text": "a", "label": "Correct"}]}`, "duration", harness.ErrFieldType},
		{"no sentences", `{` + good + `, "sentences": []}`, "sentences", harness.ErrEmptyField},
		{"a bad label", `{` + good + `, "sentences": [{"text": "a", "label": "Wrong"}]}`, "sentences[0].label", harness.ErrBadValue},
		{"an unknown category", `{` + good + `, "sentences": [{"text": "a", "label": "Correct"}, {"text": "b", "label": "Incorrect", "categories": ["Colour"]}]}`, "sentences[1].categories[0]", harness.ErrBadValue},
		{"categories on a Correct sentence", `{` + good + `, "sentences": [{"text": "a", "label": "Correct", "categories": ["Object"]}]}`, "sentences[0].categories", harness.ErrBadValue},
		{"text of the wrong type", `{` + good + `, "sentences": [{"text": 3, "label": "Correct"}]}`, "sentences.text", harness.ErrFieldType},
	}
	for _, tt := range labels {
		t.Run("labels/"+tt.name, func(t *testing.T) {
			_, err := ReadLabels(strings.NewReader("\n"+tt.line+"\n"), "l.jsonl")
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.File != "l.jsonl" || pe.Line != 2 || pe.Field != tt.field || !errors.Is(err, tt.err) {
				t.Fatalf("got %v, want l.jsonl:2 field %q: %v", err, tt.field, tt.err)
			}
		})
	}
	dup := `{` + good + `, "sentences": [{"text": "a", "label": "Correct"}]}`
	if _, err := ReadLabels(strings.NewReader(dup+"\n"+dup), "l.jsonl"); !errors.Is(err, harness.ErrDuplicateID) || !strings.Contains(err.Error(), "l.jsonl:2: field pair") {
		t.Errorf("duplicate pair: %v", err)
	}
	if _, err := ReadLabels(strings.NewReader("\n\n"), "l.jsonl"); !errors.Is(err, harness.ErrNoItems) {
		t.Errorf("empty labels file: %v", err)
	}
	verdicts := []struct {
		name, line, field string
		err               error
	}{
		{"no verifier", `{"pair": "p", "labels": [0]}`, "verifier", harness.ErrMissingField},
		{"neither labels nor reply", `{"pair": "p", "verifier": "m"}`, "labels", harness.ErrMissingField},
		{"both labels and reply", `{"pair": "p", "verifier": "m", "labels": [0], "reply": "{}"}`, "labels", harness.ErrBadValue},
		{"a label of 2", `{"pair": "p", "verifier": "m", "labels": [0, 2]}`, "labels[1]", harness.ErrBadValue},
		{"labels not an array", `{"pair": "p", "verifier": "m", "labels": "0,1"}`, "labels", harness.ErrFieldType},
	}
	for _, tt := range verdicts {
		t.Run("verdicts/"+tt.name, func(t *testing.T) {
			_, err := ReadVerdicts(strings.NewReader(tt.line), "v.jsonl")
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.Line != 1 || pe.Field != tt.field || !errors.Is(err, tt.err) {
				t.Fatalf("got %v, want v.jsonl:1 field %q: %v", err, tt.field, tt.err)
			}
		})
	}
	if _, err := ReadVerdicts(strings.NewReader("{\"pair\": \"\xff\"}"), "v.jsonl"); !errors.Is(err, harness.ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

// TestScoreMissingVerdicts: a verifier that leaves a scored pair out must
// not rank higher for it. Left out silently, A's F1 over p1 and p3 was
// above its F1 over all three pairs; now the gap is an error, or with
// AllowMissing the pair scores 0 (its Incorrect sentences missed).
func TestScoreMissingVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		drop      [2]string // verifier, pair
		wantPair  string    // the MissingError's pair; "" for none
		p, r, f1  float64   // the verifier's metrics with AllowMissing
		recallObj float64   // its recall on the Object category
	}{
		// p1 1, 1/2, 2/3; p2 missing 0; p3 (no Incorrect) 0.
		{"A leaves out p2", [2]string{"A", "p2"}, "p2", 1.0 / 3, 1.0 / 6, 2.0 / 9, 1},
		// p1 missing 0; p2 (1/2, 1, 2/3); p3 0. Object is p1's: missed.
		{"A leaves out p1", [2]string{"A", "p1"}, "p1", 1.0 / 6, 1.0 / 3, 2.0 / 9, 0},
		// p4 has only Unknown sentences: scored for no one, not missing.
		{"A leaves out the all-Unknown p4", [2]string{"A", "p4"}, "", 0.5, 0.5, 4.0 / 9, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, verdicts := readFixture(t)
			var kept []*Verdict
			for _, v := range verdicts {
				if v.Verifier != tc.drop[0] || v.Pair != tc.drop[1] {
					kept = append(kept, v)
				}
			}
			_, err := Score(pairs, kept, Options{})
			var me *MissingError
			switch {
			case tc.wantPair == "" && err != nil:
				t.Fatalf("Score: %v", err)
			case tc.wantPair != "" && !errors.As(err, &me):
				t.Fatalf("Score: %v, want a MissingError", err)
			case tc.wantPair != "":
				if me.Verifier != tc.drop[0] || me.Pair.ID != tc.wantPair || me.Count != 1 {
					t.Errorf("MissingError %+v, want verifier %s, pair %s, count 1", me, tc.drop[0], tc.wantPair)
				}
				for _, w := range []string{`verifier "A"`, `pair "` + tc.wantPair + `"`, "labels.jsonl:", "--allow-missing"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q does not say %q", err, w)
					}
				}
			}
			s, err := Score(pairs, kept, Options{AllowMissing: true})
			if err != nil {
				t.Fatal(err)
			}
			v := s.Verifiers[tc.drop[0]]
			checkMetrics(t, tc.drop[0], v.Metrics, tc.p, tc.r, tc.f1, 3)
			if want := map[bool]int{true: 1, false: 0}[tc.wantPair != ""]; v.Missing != want {
				t.Errorf("missing %d, want %d", v.Missing, want)
			}
			if got := s.ByCategory[tc.drop[0]]["Object"].Recall; got != tc.recallObj {
				t.Errorf("Object recall %v, want %v", got, tc.recallObj)
			}
			full, err := Score(pairs, verdicts, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v.F1 > full.Verifiers[tc.drop[0]].F1 {
				t.Errorf("leaving a pair out raised F1 from %v to %v", full.Verifiers[tc.drop[0]].F1, v.F1)
			}
		})
	}
}

// scores.json has exactly the layout: six top-level keys, and per
// verifier precision, recall, f1, pairs, unparsed and missing.
func TestScoresJSONLayout(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	s, err := Score(pairs, verdicts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	if got, want := sortedKeys(top), []string{"by_category", "by_duration", "by_type", "ensembles", "matrix", "verifiers"}; !slices.Equal(got, want) {
		t.Fatalf("top-level keys %v, want %v", got, want)
	}
	var vs map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["verifiers"], &vs); err != nil {
		t.Fatal(err)
	}
	if got, want := sortedKeys(vs["A"]), []string{"f1", "missing", "pairs", "precision", "recall", "unparsed"}; !slices.Equal(got, want) {
		t.Fatalf("verifier keys %v, want %v", got, want)
	}
}

// The reports are pure functions of the inputs: golden files, regenerated
// with -update.
func TestReportsGolden(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	s, err := Score(pairs, verdicts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"scores.golden.json", func(b *bytes.Buffer) error { return s.WriteJSON(b) }},
		{"scores.golden.md", func(b *bytes.Buffer) error { return s.WriteMarkdown(b) }},
		{"index.golden.html", func(b *bytes.Buffer) error { return s.WriteHTML(b) }},
	} {
		var buf bytes.Buffer
		if err := g.write(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", g.file, buf.String())
		}
	}
}

func TestWriteDirAndParquet(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	s, err := Score(pairs, verdicts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"scores.json", "scores.md", "index.html", "sentences.parquet"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	rows, err := readSentenceRows(filepath.Join(dir, "sentences.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// A judged 4 pairs (11 sentences), B 3 pairs (9 sentences).
	if len(rows) != 20 {
		t.Fatalf("%d rows, want 20", len(rows))
	}
	r := rows[1] // A, p1, sentence 2
	if r.Verifier != "A" || r.Pair != "p1" || r.Sentence != 2 || r.Label != Incorrect || r.Categories != "Object" || r.Predicted != 1 || !r.Scored || r.Bracket != "short" {
		t.Errorf("row 2: %+v", r)
	}
	for _, r := range rows {
		if r.Verifier == "B" && r.Pair == "p2" && r.Predicted != -1 {
			t.Errorf("B's unparsed reply on p2 has predicted %d, want -1", r.Predicted)
		}
		if r.Label == Unknown && r.Scored {
			t.Errorf("Unknown sentence scored: %+v", r)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if n := strings.Count(string(html), "<svg"); n != 3 {
		t.Errorf("index.html has %d charts, want 3 (two heat maps and the matrix)", n)
	}
}

func readSentenceRows(path string) ([]sentenceRow, error) {
	return parquet.ReadFile[sentenceRow](path)
}
