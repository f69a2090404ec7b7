package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/metrics"
)

func tableCards() []metrics.Card {
	f := func(x float64) *float64 { return &x }
	pool := "pool"
	return []metrics.Card{
		{
			Benchmark: "A&B_1", N: 300,
			Levels: metrics.Levels{
				Option: &metrics.LevelResult{Eps: 0.03, Attacker: "fixed-position", PValue: 0.12},
				Text:   &metrics.LevelResult{Eps: 0.0708, Attacker: "blind-reader#2", Significant: false, SignificantUncorrected: true, PValue: 0.02},
				Pool:   &metrics.LevelResult{Eps: 0.11, Attacker: "copy-xpool", Significant: true, PValue: 1.5e-5},
			},
			LevelsNotRun:  map[string]string{"frame": "30 videos failed: missing 30"},
			BreakingLevel: map[string]*string{"0.03": &pool, "0.05": &pool, "0.08": &pool},
			ALC:           f(0.088222), ALCAttacker: "knn-vote",
		},
		{Benchmark: "C", N: 10, Levels: metrics.Levels{Option: &metrics.LevelResult{Eps: -0.01, Attacker: "option-artifact"}}},
	}
}

func TestTableRows(t *testing.T) {
	t.Parallel()
	rows := TableRows(tableCards())
	var got []string
	for _, r := range rows {
		s := r.Benchmark + "/" + r.Level.String()
		if r.Breaks {
			s += " breaks"
		}
		if !r.BreakKnown {
			s += " unknown"
		}
		if r.ALC != nil {
			s += " alc"
		}
		got = append(got, s)
	}
	want := []string{"A&B_1/option", "A&B_1/text", "A&B_1/pool breaks alc", "A&B_1/frame", "C/option unknown"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rows %q, want %q", got, want)
	}
	if rows[3].Result != nil || rows[3].NotRun != "30 videos failed: missing 30" {
		t.Errorf("frame row %+v, want not run with its reason", rows[3])
	}
}

func TestPaperAttacker(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"position-prior": "L0", "copy": "L1", "siblings": "L2-rule", "retrieval-reader": "L3",
		"copy-xpool": "L1^c", "blind-reader#2": "blind reader", "question-match": "", "no-such": "",
	} {
		if got := PaperAttacker(name); got != want {
			t.Errorf("PaperAttacker(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestLaTeXEscape(t *testing.T) {
	t.Parallel()
	in := `a&b%c$d#e_f{g}h~i^j\k`
	want := `a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k`
	if got := LaTeXEscape(in); got != want {
		t.Errorf("LaTeXEscape(%q) = %q, want %q", in, got, want)
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format string
		want   []string // lines the output holds
	}{
		{"latex", []string{
			`\begin{tabular}{llllrlllrr}`, `\toprule`, `\bottomrule`,
			`A\&B\_1 & 300 & option & $\varepsilon_{\mathrm{opt}}$ & 3.0\textsuperscript{ns} & fixed-position & fixed answer position & no & - & - \\`,
			`A\&B\_1 & 300 & text & $\varepsilon_{\mathrm{text}}$ & 7.1\textsuperscript{ns} & blind-reader\#2 & blind reader & no & - & - \\`,
			`A\&B\_1 & 300 & pool & $\varepsilon_{\mathrm{pool}}$ & 11.0 & copy-xpool & L1\textsuperscript{c} & yes & 0.088 & 8.8 \\`,
			`A\&B\_1 & 300 & frame & $\varepsilon_{\mathrm{frame}}$ & not run: 30 videos failed: missing 30 & - & - & no & - & - \\`,
			`C & 10 & option & $\varepsilon_{\mathrm{opt}}$ & -1.0\textsuperscript{ns} & option-artifact & - & - & - & - \\`,
		}},
		{"md", []string{
			"| A&B_1 | 300 | text | ε_text, adds the question | +7.1% | not significant after correction | blind-reader#2 | blind reader | no | - | - |",
			"| A&B_1 | 300 | pool | ε_pool, adds the other evaluated items | +11.0% | yes | copy-xpool | L1^c | yes | 0.088 | 8.8 |",
		}},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WriteTable(&b, tableCards(), tt.format); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		for _, w := range tt.want {
			found := false
			for _, l := range lines {
				found = found || l == w
			}
			if !found {
				t.Errorf("%s: no line %q in\n%s", tt.format, w, b.String())
			}
		}
	}
	if err := WriteTable(new(strings.Builder), nil, "xlsx"); err == nil {
		t.Error("format xlsx accepted")
	}
}

// The CSV parses back with encoding/csv, every row as wide as the header,
// with the ALC on both scales.
func TestWriteTableCSV(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := WriteTable(&b, tableCards(), "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records, want header + 5", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	pool := recs[3]
	for k, want := range map[string]string{"benchmark": "A&B_1", "level": "pool", "eps": "0.11", "eps_pct": "11.0",
		"paper_attacker": "L1^c", "breaks": "true", "alc": "0.088222", "alc_100": "8.8", "alc_attacker": "knn-vote", "p_value": "1.5e-05"} {
		if got := pool[col[k]]; got != want {
			t.Errorf("pool row %s = %q, want %q", k, got, want)
		}
	}
	if got := recs[5][col["breaks"]]; got != "" {
		t.Errorf("a card without a reference has breaks %q, want empty", got)
	}
}

func TestReadCardsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out strings.Builder
	r := &Report{Version: "x", Cards: tableCards()}
	if err := r.WriteCardsJSON(&out); err != nil {
		t.Fatal(err)
	}
	cards, err := ReadCardsFile(write("ok.json", out.String()))
	if err != nil || len(cards) != 2 || cards[0].Benchmark != "A&B_1" {
		t.Fatalf("ReadCardsFile = %d cards, %v", len(cards), err)
	}
	for name, body := range map[string]string{"two.json": out.String() + "{}", "none.json": `{"vidscreen":"x"}`, "bad.json": "{"} {
		if _, err := ReadCardsFile(write(name, body)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want one naming the file", name, err)
		}
	}
}
