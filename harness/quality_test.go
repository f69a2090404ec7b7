package harness

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestReadersAcceptQuirksOfRealDataWithFlags: options padded with "",
// repeated option texts, letter prefixes and meta options are data, not
// errors (this reverses the earlier rule that refused empty option text).
// Both readers accept such items and flag them.
func TestReadersAcceptQuirksOfRealDataWithFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		options []string
		want    []string
	}{
		{"two options padded to four with empty strings", []string{"yes", "no", "", ""}, []string{"empty_option"}},
		{"one blank option", []string{"a dog", "   ", "a cat"}, []string{"empty_option"}},
		{"a repeated option text", []string{"The table.", "the table", "a chair"}, []string{"repeated_option"}},
		{"letter prefixes", []string{"A. a dog", "B. a cat", "C. a bird"}, []string{"letter_prefix"}},
		{"parenthesised letter prefixes", []string{"(A) red", "(B) blue"}, []string{"letter_prefix"}},
		{"ordering options made of letters (Video-MME)", []string{"(a)(b)(c)(d).", "(b)(a)(d)(c).", "(c)(d)(a)(b).", "(d)(c)(b)(a)."}, nil},
		{"a letter and a dot with no space", []string{"A.dog", "B.cat"}, nil},
		{"bracketed letter prefixes", []string{"[A] red", "[B] blue"}, []string{"letter_prefix"}},
		{"a meta option", []string{"running", "walking", "None of the above"}, []string{"meta_option"}},
		{"I don't know", []string{"running", "I don't know"}, []string{"meta_option"}},
		{"a clean item", []string{"A dog runs", "a cat sleeps", "Birds sing"}, nil},
		{"one option that starts like a letter", []string{"A. Lincoln", "George Washington", "Thomas Jefferson"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := fmt.Sprintf(`{"id": "q", "benchmark": "B", "video": "v", "question": "what?", "options": [%s], "answer": 0}`, quoteAll(tt.options))
			items, err := NewJSONLReader(strings.NewReader(line+"\n"), "f.jsonl").ReadAll()
			if err != nil {
				t.Fatalf("JSONL: %v", err)
			}
			if got := items[0].Quality.Names(); !slices.Equal(got, tt.want) {
				t.Errorf("JSONL flags %v, want %v", got, tt.want)
			}
			pq := writeParquet(t, []pqItem{{ID: "q", Benchmark: "B", Video: "v", Question: "what?", Options: tt.options}})
			pr, err := NewParquetReader(bytes.NewReader(pq), int64(len(pq)), "f.parquet")
			if err != nil {
				t.Fatal(err)
			}
			if items, err = pr.ReadAll(); err != nil {
				t.Fatalf("Parquet: %v", err)
			}
			if got := items[0].Quality.Names(); !slices.Equal(got, tt.want) {
				t.Errorf("Parquet flags %v, want %v", got, tt.want)
			}
		})
	}
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
