package vidomni

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitHardCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain sentences split at each stop",
			"A man walks in. He sits down! Does he stay? He leaves.",
			[]string{"A man walks in.", "He sits down!", "Does he stay?", "He leaves."}},
		{"titles never end a sentence",
			"Mr. Lee and Dr. Smith talk to Prof. Ng. They laugh.",
			[]string{"Mr. Lee and Dr. Smith talk to Prof. Ng.", "They laugh."}},
		{"e.g. and i.e. stay inside their sentence even before a capital",
			"He picks fruit, e.g. Apples and pears, i.e. Fresh ones. Then he leaves.",
			[]string{"He picks fruit, e.g. Apples and pears, i.e. Fresh ones.", "Then he leaves."}},
		{"etc. ends a sentence before a capital but not before lower case",
			"Cups, plates, etc. are on the table. Knives, forks etc. The man eats.",
			[]string{"Cups, plates, etc. are on the table.", "Knives, forks etc.", "The man eats."}},
		{"decimals, prices and distances stay whole",
			"The car drives 3.5 km at 42.7 km/h. It costs $1,200.50. Version 2.0 ships.",
			[]string{"The car drives 3.5 km at 42.7 km/h.", "It costs $1,200.50.", "Version 2.0 ships."}},
		{"initials and dotted acronyms",
			"A book by J. R. R. Tolkien lies near a U.S. Army jeep. It is dusty.",
			[]string{"A book by J. R. R. Tolkien lies near a U.S. Army jeep.", "It is dusty."}},
		{"times of day end a sentence only before a capital",
			"At 5 p.m. the lights go on. The shop closes at 9 p.m. A guard locks the door.",
			[]string{"At 5 p.m. the lights go on.", "The shop closes at 9 p.m.", "A guard locks the door."}},
		{"a quoted sentence followed by lower case goes on",
			`The sign reads "Exit." and a woman walks under it. She stops.`,
			[]string{`The sign reads "Exit." and a woman walks under it.`, "She stops."}},
		{"a stop inside closing quotes ends the sentence before a capital",
			`He shouts "Stop!" Then he runs. She says, “Wait.” He does not.`,
			[]string{`He shouts "Stop!"`, "Then he runs.", "She says, “Wait.”", "He does not."}},
		{"a sentence may start with a quote",
			`The crowd cheers. "Goal!" appears on the screen.`,
			[]string{"The crowd cheers.", `"Goal!" appears on the screen.`}},
		{"ellipses: lower case goes on, a capital starts anew",
			"He waits... then turns around. The door opens… Nobody is there.",
			[]string{"He waits... then turns around.", "The door opens…", "Nobody is there."}},
		{"No. before a number is an abbreviation, said no. is not",
			"Player No. 7 scores. The coach says no. The crowd boos.",
			[]string{"Player No. 7 scores.", "The coach says no.", "The crowd boos."}},
		{"list items and headings become their own sentences without markers",
			"**Opening Scene:**\n1. A woman enters a kitchen. She washes a pan.\n2. She chops onions\n- She adds oil",
			[]string{"**Opening Scene:**", "A woman enters a kitchen.", "She washes a pan.", "She chops onions", "She adds oil"}},
		{"a line wrapped mid-sentence joins the next line",
			"The man in the red\njacket waves.\n\nA dog barks.",
			[]string{"The man in the red jacket waves.", "A dog barks."}},
		{"a sentence run on without a space is cut, domains are not",
			"The man walks.The woman follows to example.com and the U.S.A. Office.",
			[]string{"The man walks.", "The woman follows to example.com and the U.S.A. Office."}},
		{"abbreviations in parentheses",
			"Tools (approx. 12 pieces, cf. Fig. 3) lie on a bench. A hand takes one.",
			[]string{"Tools (approx. 12 pieces, cf. Fig. 3) lie on a bench.", "A hand takes one."}},
		{"a digit may start a sentence",
			"Two men run. 3 dogs follow them.",
			[]string{"Two men run.", "3 dogs follow them."}},
		{"no final stop", "A cat sleeps", []string{"A cat sleeps"}},
		{"empty text", "  \n\n ", nil},
		{"white space inside a sentence is one space", "A  cat\tsleeps   on a mat.", []string{"A cat sleeps on a mat."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Splitting loses no words: the sentences joined hold the caption's words
// in order (list markers aside).
func TestSplitKeepsEveryWord(t *testing.T) {
	t.Parallel()
	in := "The video opens with a close-up of a hand holding a silver credit card, transitioning to a person in a white shirt. The scene shifts to a man in a suit... He walks down a hallway, e.g. past Dr. Who's office at 3.5 m/s! Is it 5 p.m. yet? \"Yes.\" The end."
	got := strings.Fields(strings.Join(Split(in), " "))
	if want := strings.Fields(in); !slices.Equal(got, want) {
		t.Fatalf("words changed:\n got %q\nwant %q", got, want)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"A. B. C.", "Mr. X... y? Z!", "1. a\n2) b\n\n- c", `"Hi." "Bye!"`, "x.Y z.Aa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sent := range Split(s) {
			if sent == "" || strings.TrimSpace(sent) != sent {
				t.Fatalf("Split(%q) gave %q", s, sent)
			}
		}
	})
}
