package items

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

func TestParseList(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{`["a", "b"]`, []string{"a", "b"}},
		{`['A. a dog', "B. the dog's bone"]`, []string{"A. a dog", "B. the dog's bone"}},
		{"['a' 'b'\n 'c']", []string{"a", "b", "c"}},
		{`['it\'s', 'x\ty']`, []string{"it's", "x\ty"}},
		{`[]`, nil},
	} {
		got, err := ParseList(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseList(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`a, b`, `['a'`, `['a', b]`, `["a"`} {
		if got, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q) = %q, accepted", bad, got)
		}
	}
}

func TestStripLetterPrefixes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		in    []string
		want  []string
		strip bool
	}{
		{"dots", []string{"A. a dog", "B. a cat", "C. a bird"}, []string{"a dog", "a cat", "a bird"}, true},
		{"parens", []string{"(A) up", "(B) down"}, []string{"up", "down"}, true},
		{"right paren", []string{"A) up", "B) down"}, []string{"up", "down"}, true},
		{"colon", []string{"A: up", "B: down"}, []string{"up", "down"}, true},
		{"lower case", []string{"a. up", "b. down"}, []string{"up", "down"}, true},
		{"ordering options", []string{"(a)(b)(c)(d).", "(b)(a)(d)(c).", "(c)(d)(a)(b)."}, nil, false},
		{"out of order", []string{"B. up", "A. down"}, nil, false},
		{"one without", []string{"A. up", "down"}, nil, false},
		{"mixed forms", []string{"A. up", "(B) down"}, nil, false},
		{"no space", []string{"A.up", "B.down"}, nil, false},
		{"no text", []string{"A. ", "B. down"}, nil, false},
		{"a word", []string{"A cat", "B cat"}, nil, false},
		{"one option", []string{"A. only"}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, stripped := StripLetterPrefixes(tt.in)
			want := tt.want
			if !tt.strip {
				want = tt.in
			}
			if stripped != tt.strip || !slices.Equal(got, want) {
				t.Errorf("StripLetterPrefixes(%q) = %q, %v; want %q, %v", tt.in, got, stripped, want, tt.strip)
			}
		})
	}
}

func TestOptionsInQuestion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in, q string
		opts        []string
	}{
		{"lines", "What is the man doing?\nA. running\nB. walking\nC. sitting", "What is the man doing?", []string{"running", "walking", "sitting"}},
		{"options line", "How fast is the car?\nOptions:\n(A) fast\n(B) slow\nAnswer with the letter.", "How fast is the car?", []string{"fast", "slow"}},
		{"inline", "Is the video played in reverse? (A) yes (B) no", "Is the video played in reverse?", []string{"yes", "no"}},
		{"inline dots", "Which comes first? A. the jump B. the fall C. the run", "Which comes first?", []string{"the jump", "the fall", "the run"}},
		{"none", "What is the man doing?", "What is the man doing?", nil},
		{"one letter", "Is this A. a test?", "Is this A. a test?", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, opts := OptionsInQuestion(tt.in)
			if q != tt.q || !slices.Equal(opts, tt.opts) {
				t.Errorf("OptionsInQuestion(%q) = %q, %q; want %q, %q", tt.in, q, opts, tt.q, tt.opts)
			}
		})
	}
}

func TestGold(t *testing.T) {
	t.Parallel()
	opts := []string{"a dog", "a cat", "a bird", "a fish"}
	counts := []string{"0", "1", "2", "3"}
	for _, tt := range []struct {
		name    string
		gold    string
		options []string
		base    int
		want    int
		open    string // a substring of the open-ended reason
		err     error
	}{
		{"letter", "B", opts, -1, 1, "", nil},
		{"letter in parens", "(C)", opts, -1, 2, "", nil},
		{"text", "A cat.", opts, -1, 1, "", nil},
		{"prefixed text", "D. a fish", opts, -1, 3, "", nil},
		{"digit 0-based", "2", opts, 0, 2, "", nil},
		{"digit 1-based", "2", opts, 1, 1, "", nil},
		{"digit unsaid", "2", opts, -1, -1, "", ErrAmbiguousIndex},
		{"digit past the options", "4", opts, 0, -1, "", harness.ErrAnswerRange},
		{"digit that is an option's text", "2", counts, -1, 2, "", nil},
		{"letter past the options", "E", opts, -1, -1, "", harness.ErrAnswerRange},
		{"a letter no option has", "(Z)", opts, -1, -1, "", harness.ErrAnswerRange},
		{"several letters", "A, C", opts, -1, -1, "several options (A, C)", nil},
		{"several joined", "AC", opts, -1, -1, "several options (A, C)", nil},
		{"several with and", "B and D", opts, -1, -1, "several options (B, D)", nil},
		{"several as a list", "['a dog', 'a cat']", opts, -1, -1, "several options", nil},
		{"empty", " ", opts, -1, -1, "empty", nil},
		{"no option", "a horse", opts, -1, -1, "no option's letter or text", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, open, err := Gold(tt.gold, tt.options, tt.base)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Gold(%q) error %v, want %v", tt.gold, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || (tt.open == "") != (open == "") || !strings.Contains(open, tt.open) {
				t.Errorf("Gold(%q, base %d) = %d, %q, %v; want %d, %q", tt.gold, tt.base, got, open, err, tt.want, tt.open)
			}
		})
	}
}

// TestAmbiguousNamesBothReadings: the refusal must let a user see which
// reading is right without opening the file.
func TestAmbiguousNamesBothReadings(t *testing.T) {
	t.Parallel()
	_, _, err := Gold("1", []string{"a dog", "a cat", "a bird"}, -1)
	msg := err.Error()
	for _, want := range []string{`option B ("a cat") counted from 0`, `option A ("a dog") counted from 1`, "--index-base 0 or 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	_, _, err = Reply("0", []string{"a dog", "a cat"}, -1)
	if !errors.Is(err, ErrAmbiguousIndex) || !strings.Contains(err.Error(), "no option counted from 1") {
		t.Errorf("Reply(\"0\") error %v, want both readings, the 1-based one none", err)
	}
}

func TestReply(t *testing.T) {
	t.Parallel()
	opts := []string{"a dog", "a cat", "a bird"}
	for _, tt := range []struct {
		reply string
		base  int
		want  int
	}{
		{"B", -1, 1},
		{"The answer is C.", -1, 2},
		{"a cat", -1, 1},
		{"0", 0, 0},
		{"0", 1, -1},
		{"(3)", 1, 2},
		{"!!!!!!!!!!!!!!!!", -1, -1},
	} {
		got, _, err := Reply(tt.reply, opts, tt.base)
		if err != nil || got != tt.want {
			t.Errorf("Reply(%q, base %d) = %d, %v; want %d", tt.reply, tt.base, got, err, tt.want)
		}
	}
}

func TestOptionsBase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		user, layout, want int
	}{{-1, -1, -1}, {-1, 0, 0}, {-1, 1, 1}, {1, -1, 1}, {0, -1, 0}, {1, 0, 0}} {
		if got := (Options{IndexBase: tt.user}).Base(tt.layout); got != tt.want {
			t.Errorf("Options{IndexBase: %d}.Base(%d) = %d, want %d", tt.user, tt.layout, got, tt.want)
		}
	}
	if NoOptions().Base(-1) != -1 {
		t.Error("NoOptions reads digits without being told how")
	}
}
