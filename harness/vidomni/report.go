package vidomni

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// WriteJSON writes scores.json: {"verifiers", "by_type", "by_duration",
// "by_category", "matrix", "ensembles"}, values as fractions in [0, 1],
// keys sorted, so the same inputs give the same bytes.
func (s *Scores) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// WriteDir writes scores.json, scores.md, index.html and sentences.parquet
// to dir (created if missing). Each file is written under a temporary name
// and renamed, so a file present is a whole one.
func (s *Scores) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{{"scores.json", s.WriteJSON}, {"scores.md", s.WriteMarkdown}, {"index.html", s.WriteHTML}, {"sentences.parquet", s.WriteParquet}} {
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := atomicfile.WriteBytes(filepath.Join(dir, f.name), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// VerifierNames returns the verifiers' names in the order the reports use.
func (s *Scores) VerifierNames() []string { return append([]string(nil), s.names...) }

// Unparsed is the number of replies ParseReply could not read, over all
// verifiers.
func (s *Scores) Unparsed() int { return len(s.unparsed) }

// policyText says in words how pairs without an Incorrect sentence count.
func (s *Scores) policyText() string {
	switch s.policy {
	case NoIncorrectOne:
		return "kept, 0/0 read as 1 (a verifier that flags nothing there scores 1)"
	case NoIncorrectSkip:
		return "left out of precision, recall and F1"
	}
	return "kept, 0/0 read as 0 (they count 0 whatever the verifier says; equation 2 over all N pairs)"
}

func (s *Scores) bracketText() string {
	parts := make([]string, len(s.brackets))
	lo := 0.0
	for i, b := range s.brackets {
		switch {
		case math.IsInf(b.Max, 1):
			parts[i] = fmt.Sprintf("%s > %s", b.Name, secs(lo))
		case i == 0:
			parts[i] = fmt.Sprintf("%s <= %s", b.Name, secs(b.Max))
		default:
			parts[i] = fmt.Sprintf("%s %s-%s", b.Name, secs(lo), secs(b.Max))
		}
		lo = b.Max
	}
	return strings.Join(parts, ", ")
}

func secs(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + " s" }

func pct(v float64) string { return fmt.Sprintf("%.1f", 100*v) }

// WriteMarkdown writes scores.md: the labelled set, then one table per
// view, values in percent.
func (s *Scores) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	c := s.counts
	fmt.Fprintf(&b, "# VidOmni-Bench sentence-wise verification\n\n")
	fmt.Fprintf(&b, "Labelled set: %s, %s (%d Incorrect, %d Unknown left out). ", plural(c.pairs, "pair"), plural(c.sentences, "sentence"), c.incorrect, c.unknown)
	fmt.Fprintf(&b, "Incorrect is the positive class; precision, recall and F1 are computed per pair and averaged over pairs (values in %%). ")
	fmt.Fprintf(&b, "%s without an Incorrect sentence: %s. %s with only Unknown sentences, left out. ", plural(c.noIncorrect, "pair"), s.policyText(), plural(c.onlyUnknown, "pair"))
	fmt.Fprintf(&b, "Duration brackets: %s.\n\n", s.bracketText())

	fmt.Fprintf(&b, "## Caption sources\n\nAs the paper's table 1, Unknown sentences left out: the share of pairs whose caption has an Incorrect sentence (Video Incorrect Rate) and the mean share of Incorrect sentences per caption.\n\n| source | pairs | sentences | Video Incorrect Rate | Incorrect / Caption |\n|---|---:|---:|---:|---:|\n")
	for _, src := range s.sources {
		st := s.bySource[src]
		if st == nil || st.pairs == 0 {
			fmt.Fprintf(&b, "| %s | 0 | 0 | - | - |\n", mdCell(src))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", mdCell(src), st.pairs, st.sentences, pct(float64(st.withIncorrect)/float64(st.pairs)), pct(st.shareSum/float64(st.pairs)))
	}

	fmt.Fprintf(&b, "\n## Verifiers\n\n| verifier | pairs judged | pairs missing | pairs scored | precision | recall | F1 | unparsed replies |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var missing int
	for _, n := range s.names {
		v := s.Verifiers[n]
		missing += v.Missing
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %s | %d |\n", mdCell(n), s.pairsSeen[n], v.Missing, v.Pairs, pct(v.Precision), pct(v.Recall), pct(v.F1), v.Unparsed)
	}
	if missing > 0 {
		fmt.Fprintf(&b, "\nPairs missing: labelled pairs the verifier gave no verdict on (--allow-missing); each is scored 0, its Incorrect sentences missed.\n")
	}

	fmt.Fprintf(&b, "\n## F1 by complexity type\n\n| verifier |")
	for t := 1; t <= 5; t++ {
		fmt.Fprintf(&b, " %d %s |", t, Types[t-1])
	}
	b.WriteString("\n|---|---:|---:|---:|---:|---:|\n")
	for _, n := range s.names {
		fmt.Fprintf(&b, "| %s |", mdCell(n))
		for t := 1; t <= 5; t++ {
			b.WriteString(" " + cellText(s.ByType[n][strconv.Itoa(t)]) + " |")
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "\n## F1 by duration\n\n| verifier |")
	for _, br := range s.brackets {
		fmt.Fprintf(&b, " %s |", mdCell(br.Name))
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(s.brackets)) + "\n")
	for _, n := range s.names {
		fmt.Fprintf(&b, "| %s |", mdCell(n))
		for _, br := range s.brackets {
			b.WriteString(" " + cellText(s.ByDuration[n][br.Name]) + " |")
		}
		b.WriteString("\n")
	}

	for _, n := range s.names {
		fmt.Fprintf(&b, "\n### %s: F1 by type x duration\n\n| type |", mdCell(n))
		for _, br := range s.brackets {
			fmt.Fprintf(&b, " %s |", mdCell(br.Name))
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(s.brackets)) + "\n")
		for t := 1; t <= 5; t++ {
			fmt.Fprintf(&b, "| %d %s |", t, Types[t-1])
			for _, br := range s.brackets {
				m, ok := s.grid[n][gridKey{t, br.Name}]
				if !ok {
					b.WriteString(" - |")
					continue
				}
				b.WriteString(" " + cellText(m) + " |")
			}
			b.WriteString("\n")
		}
	}

	fmt.Fprintf(&b, "\n## Recall by error category\n\n| verifier |")
	for _, c := range Categories {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(Categories)) + "\n")
	for _, n := range s.names {
		fmt.Fprintf(&b, "| %s |", mdCell(n))
		for _, c := range Categories {
			r, ok := s.ByCategory[n][c]
			if !ok {
				b.WriteString(" - |")
				continue
			}
			fmt.Fprintf(&b, " %s (%d) |", pct(r.Recall), r.Sentences)
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "\n## F1, verifier x caption source\n\nRows verify, columns wrote the captions; **bold** is self-verification.\n\n| verifier |")
	for _, src := range s.sources {
		fmt.Fprintf(&b, " %s |", mdCell(src))
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(s.sources)) + "\n")
	for _, n := range s.names {
		fmt.Fprintf(&b, "| %s |", mdCell(n))
		for _, src := range s.sources {
			cell, ok := s.Matrix[n][src]
			switch {
			case !ok:
				b.WriteString(" - |")
			case cell.Self:
				fmt.Fprintf(&b, " **%s** |", cellText(cell.Metrics))
			default:
				b.WriteString(" " + cellText(cell.Metrics) + " |")
			}
		}
		b.WriteString("\n")
	}

	if len(s.Ensembles) > 0 {
		fmt.Fprintf(&b, "\n## Cross-model ensembles\n\nA sentence is Incorrect if either verifier says so, on the pairs both judged.\n\n| ensemble | pairs | precision | recall | F1 | self-verification F1 -> ensemble F1 on own captions |\n|---|---:|---:|---:|---:|---|\n")
		for _, key := range sortedKeys(s.Ensembles) {
			e := s.Ensembles[key]
			var gains []string
			for _, m := range sortedKeys(e.Self) {
				g := e.Self[m]
				gains = append(gains, fmt.Sprintf("%s: %s -> %s (%+.1f p.p., %s)", mdCell(m), pct(g.SelfF1), pct(g.EnsembleF1), 100*(g.EnsembleF1-g.SelfF1), plural(g.Pairs, "pair")))
			}
			if len(gains) == 0 {
				gains = []string{"-"}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", mdCell(key), e.Pairs, pct(e.Precision), pct(e.Recall), pct(e.F1), strings.Join(gains, "; "))
		}
	}

	if len(s.unparsed) > 0 {
		const show = 20
		fmt.Fprintf(&b, "\n## Unparsed replies\n\n%s could not be read; each scores 0 for its pair.", plural(len(s.unparsed), "reply"))
		if len(s.unparsed) > show {
			fmt.Fprintf(&b, " The first %d:", show)
		}
		b.WriteString("\n\n| where | verifier | pair | why |\n|---|---|---|---|\n")
		for i, u := range s.unparsed {
			if i == show {
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(u.where), mdCell(u.verifier), mdCell(u.pair), mdCell(u.reason))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cellText is "F1 (pairs)" in percent.
func cellText(m Metrics) string {
	if m.Pairs == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%d)", pct(m.F1), m.Pairs)
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// plural is "1 pair", "2 pairs", "3 replies".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
