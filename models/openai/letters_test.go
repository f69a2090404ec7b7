package openai

import (
	"encoding/json"
	"math"
	"testing"
)

// The floor is log(1e-6) exactly, the Video-Index authors' value
// (harness/solve.LogFloor is this constant).
func TestLogFloorIsLogOneInAMillion(t *testing.T) {
	t.Parallel()
	if LogFloor != math.Log(1e-6) {
		t.Fatalf("LogFloor = %v, want log(1e-6) = %v", LogFloor, math.Log(1e-6))
	}
}

// tok is one entry of a hand-written top-20 list: a token and its
// probability (its log is what the server reports).
type tok struct {
	text string
	p    float64
}

// scoreTop20 sends the list through the chat reply parser, as a server's
// first position would arrive, and merges it for letters.
func scoreTop20(t *testing.T, top []tok, letters []string) Scores {
	t.Helper()
	if len(top) != 20 {
		t.Fatalf("%d candidates, want a top 20", len(top))
	}
	type cand struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
	}
	cands := make([]cand, len(top))
	for i, c := range top {
		cands[i] = cand{c.text, math.Log(c.p)}
	}
	reply := map[string]any{"choices": []any{map[string]any{"logprobs": map[string]any{"content": []any{
		map[string]any{"token": top[0].text, "logprob": math.Log(top[0].p), "top_logprobs": cands},
	}}}}}
	b, err := json.Marshal(reply)
	if err != nil {
		t.Fatal(err)
	}
	var resp completionResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	cs, err := resp.candidates()
	if err != nil {
		t.Fatal(err)
	}
	return mergeLetters(cs, letters)
}

// fillers returns n candidates that spell no option letter, each of
// probability p.
func fillers(n int, p float64) []tok {
	names := []string{"The", "Answer", "I", "Based", "Option", "**", "E", "a", "\n", " The", "Looking", "It", "(", "((A", "A.)", "AB", " answer", ":", "Yes", "None"}
	out := make([]tok, n)
	for i := range out {
		out[i] = tok{names[i], p}
	}
	return out
}

func TestMergeLettersHandWorkedTop20(t *testing.T) {
	t.Parallel()
	abcd := []string{"A", "B", "C", "D"}
	tests := []struct {
		name       string
		top        []tok
		want       []float64 // merged probabilities; 0 for a floored letter
		wantFound  []bool
		wantLowest float64
	}{
		{
			// B: 0.5 + 0.2 + 0.05, A: 0.08 + 0.02, D (a SentencePiece
			// piece and the bare letter): 0.04 + 0.01; C is not in the top
			// 20, so it gets the floor, not the lowest value returned (0.005).
			name: "a letter absent, variants merged",
			top: append([]tok{
				{"B", 0.5}, {" B", 0.2}, {"(B", 0.05},
				{"A", 0.08}, {" A", 0.02},
				{"\u2581D", 0.04}, {"D", 0.01},
			}, fillers(13, 0.005)...),
			want:       []float64{0.10, 0.75, 0, 0.05},
			wantFound:  []bool{true, true, false, true},
			wantLowest: math.Log(0.005),
		},
		{
			// A: 0.4 + 0.1, B: 0.2, C: 0.1 + 0.05 + 0.05 (" C", "C", "(C"),
			// D: 0.05 + 0.01 (GPT-2's space marker): nothing floored.
			name: "all letters present",
			top: append([]tok{
				{"A", 0.4}, {" A", 0.1},
				{"B", 0.2},
				{" C", 0.1}, {"C", 0.05}, {"(C", 0.05},
				{"D", 0.05}, {"\u0120D", 0.01},
			}, fillers(12, 0.003)...),
			want:       []float64{0.5, 0.2, 0.2, 0.06},
			wantFound:  []bool{true, true, true, true},
			wantLowest: math.Log(0.003),
		},
		{
			// A very sure model: the top 20 reaches below the floor, and the
			// absent letters still get log(1e-6) (as the authors do), above
			// the present D at 1e-9.
			name: "lowest returned below the floor",
			top: append([]tok{
				{"A", 0.999}, {" A", 0.0005}, {"(A", 0.0001},
				{" B", 1e-5},
				{"D", 1e-9},
			}, fillers(15, 1e-10)...),
			want:       []float64{0.9996, 1e-5, 0, 1e-9},
			wantFound:  []bool{true, true, false, true},
			wantLowest: math.Log(1e-10),
		},
		{
			name: "two letters absent",
			top: append([]tok{
				{" C", 0.6}, {"(C", 0.1},
				{"A", 0.1},
			}, fillers(17, 0.01)...),
			want:       []float64{0.1, 0, 0.7, 0},
			wantFound:  []bool{true, false, true, false},
			wantLowest: math.Log(0.01),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scoreTop20(t, tt.top, abcd)
			floored := 0
			for i, l := range abcd {
				want := LogFloor
				if tt.want[i] > 0 {
					want = math.Log(tt.want[i])
				} else {
					floored++
				}
				if math.Abs(s.LogProbs[i]-want) > 1e-12 || s.Found[i] != tt.wantFound[i] {
					t.Errorf("%s: %v (found %v), want %v (found %v)", l, s.LogProbs[i], s.Found[i], want, tt.wantFound[i])
				}
			}
			if got := s.Floored(); got != floored {
				t.Errorf("floored %d, want %d", got, floored)
			}
			if math.Abs(s.Lowest-tt.wantLowest) > 1e-12 {
				t.Errorf("lowest %v, want %v", s.Lowest, tt.wantLowest)
			}
		})
	}
}

// The floor, not the lowest value returned, sets a floored letter's share
// of the margin log p(gold) - mean log p(others): worked for the first list
// above, gold B.
func TestFloorSetsTheMargin(t *testing.T) {
	t.Parallel()
	top := append([]tok{
		{"B", 0.5}, {" B", 0.2}, {"(B", 0.05},
		{"A", 0.08}, {" A", 0.02},
		{"\u2581D", 0.04}, {"D", 0.01},
	}, fillers(13, 0.005)...)
	s := scoreTop20(t, top, []string{"A", "B", "C", "D"})
	margin := s.LogProbs[1] - (s.LogProbs[0]+s.LogProbs[2]+s.LogProbs[3])/3
	// log 0.75 - (log 0.10 + log 1e-6 + log 0.05) / 3 = 6.08; the lowest
	// value returned (0.005) in C's place would give 3.24.
	want := math.Log(0.75) - (math.Log(0.10)+math.Log(1e-6)+math.Log(0.05))/3
	if math.Abs(margin-want) > 1e-12 {
		t.Fatalf("margin %v, want %v", margin, want)
	}
	if math.Abs(want-6.08) > 0.01 {
		t.Fatalf("hand-worked margin %v, want about 6.08", want)
	}
}

func TestLetterOfVariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ tok, want string }{
		{"A", "A"}, {" A", "A"}, {"\nA", "A"}, {"A ", "A"},
		{"(A", "A"}, {" (A", "A"}, {"[A", "A"}, {"A.", "A"}, {"A)", "A"}, {"A:", "A"}, {"(A)", "A"}, {" B. ", "B"},
		{"\u2581A", "A"}, {"\u0120A", "A"}, {"\u010aA", "A"}, {"\u2581(A", "A"}, {"\u0120A.", "A"},
		{"a", ""}, {"((A", ""}, {"( A", ""}, {"(", ""}, {"AB", ""}, {"A.)", ""}, {"Answer", ""},
	} {
		if got := letterOf(tc.tok); got != tc.want {
			t.Errorf("letterOf(%q) = %q, want %q", tc.tok, got, tc.want)
		}
	}
}

// TestLeadingLetterReadsTheAuthorsForms: a generated reply's first word
// (after a repeated "Answer:") is read by the authors' letter regex.
func TestLeadingLetterReadsTheAuthorsForms(t *testing.T) {
	t.Parallel()
	opts := []string{"red", "blue", "green"}
	for _, tc := range []struct {
		reply string
		want  int
	}{
		{"B", 1}, {" B. blue", 1}, {"(C)", 2}, {"[A] red", 0}, {"A:", 0}, {"B)", 1}, {"Answer: C", 2}, {"Answer:B.", 1},
		{"Blue", -1}, {"b", -1}, {"D", -1}, {"", -1}, {"The answer is B", -1}, {"((A", -1},
	} {
		if got := leadingLetter(tc.reply, opts); got != tc.want {
			t.Errorf("leadingLetter(%q) = %d, want %d", tc.reply, got, tc.want)
		}
	}
}
