package answer

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	opts := []string{"a dog", "a red car", "red", "the man opens the door"}
	tests := []struct {
		name  string
		reply string
		want  int
		rule  Rule
	}{
		{"a bare letter", "B", 1, OptionLetter},
		{"a letter with a full stop and text", "C. red", 2, OptionLetter},
		{"a letter in parentheses", "(D) the man opens the door", 3, OptionLetter},
		{"a lower-case reply is not a letter", "b", -1, None},
		{"the article A opening a sentence", "A red car is parked, so the answer is B.", 1, AnswerIs},
		{"the pronoun I", "I think the answer is (D)", 3, AnswerIs},
		{"a bare A is the letter", "A", 0, OptionLetter},
		{"the last answer-is wins", "The answer is A... no, the correct answer is C", 2, AnswerIs},
		{"option: X", "Best option: D", 3, AnswerIs},
		{"a letter past the options", "The answer is F", -1, None},
		{"the text of one option", "The man opens the door.", 3, OptionText},
		{"a reply containing one option", "I see a dog running", 0, OptionText},
		{"the longer option holds the shorter", "it is a red car", 1, OptionText},
		{"two options contained", "a dog and the man opens the door", -1, None},
		{"a number counts from one", "2", 1, Number},
		{"a number out of range", "9", -1, None},
		{"nothing", "I cannot tell from the video.", -1, None},
		{"empty", "  ", -1, None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rule := Parse(tt.reply, opts)
			if got != tt.want || rule != tt.rule {
				t.Errorf("Parse(%q) = %d, %v; want %d, %v", tt.reply, got, rule, tt.want, tt.rule)
			}
		})
	}
}

func TestGold(t *testing.T) {
	t.Parallel()
	opts := []string{"A. walk", "B. run", "C. swim"}
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"B", 1}, {"b", 1}, {"(C)", 2}, {"A.", 0}, {"Option C", 2}, {"run", 1}, {"Swim.", 2}, {"C. swim", 2},
		{"D", -1}, {"fly", -1}, {"", -1}, {"1", -1},
	} {
		if got := Gold(tt.in, opts); got != tt.want {
			t.Errorf("Gold(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	// Options that repeat a text make it ambiguous.
	if got := Gold("yes", []string{"yes", "no", "Yes"}); got != -1 {
		t.Errorf("a repeated option text: %d, want -1", got)
	}
	// Sixteen options run to P.
	many := make([]string, 16)
	for i := range many {
		many[i] = Letter(i) + " text"
	}
	if got := Gold("P", many); got != 15 || Letter(15) != "P" {
		t.Errorf("P of 16: %d", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"B", "A man", "answer is (C)", "2", "red car"} {
		f.Add(s)
	}
	opts := []string{"red", "red car", "blue"}
	f.Fuzz(func(t *testing.T, s string) {
		i, rule := Parse(s, opts)
		if (i < 0) != (rule == None) || i >= len(opts) {
			t.Fatalf("Parse(%q) = %d, %v", s, i, rule)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	opts := []string{"the man opens the door", "the woman sits down", "a dog barks", "nothing happens"}
	replies := []string{"B", "The answer is (C).", "I think the woman sits down.", "Nothing happens here, really."}
	for i := 0; b.Loop(); i++ {
		Parse(replies[i%len(replies)], opts)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "replies/s")
}
