package formats

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness/answer"
)

// exportPostPrompt is the last line of every prompt vidscreen's lmms-eval
// export writes (harness/release/export's PostPrompt, also Video-MME's
// post_prompt in lmms-eval): where it closes a prompt that opens with the
// export's intro, the options run to the line before it, so that an
// option holding a line break comes back whole.
const exportPostPrompt = "Answer with the option's letter from the given choices directly."

// optionMarker is a line that reads as an option: an upper-case letter A-P
// as "A. ", "(A) ", "A) " or "A: ", then text. A line of a question or of
// an option that reads so makes the prompt ambiguous.
var optionMarker = regexp.MustCompile(`^(?:\(([A-P])\)|([A-P])[.):])\s+\S`)

// markerLetter is the letter of an option line, or "".
func markerLetter(l string) string {
	l = strings.TrimSpace(l)
	// Most lines open with no marker: told apart before the regexp.
	if len(l) < 3 || !(l[0] == '(' || l[0] >= 'A' && l[0] <= 'P' && strings.IndexByte(".):", l[1]) >= 0) {
		return ""
	}
	g := optionMarker.FindStringSubmatch(l)
	switch {
	case g == nil:
		return ""
	case g[1] != "":
		return g[1]
	}
	return g[2]
}

// markerText is the option's text on its first line: the line less its
// marker, trimmed.
func markerText(l string) string {
	l = strings.TrimSpace(l)
	if l[0] == '(' {
		return strings.TrimSpace(l[3:])
	}
	return strings.TrimSpace(l[2:])
}

// A promptParse is one reading of a prompt's lines: the option lines
// start at marks[0], option k at marks[k]; the last option ends before
// line end.
type promptParse struct {
	marks []int
	end   int
}

// readOptionLines reads the options of a prompt split in lines, as
// lmms-eval's multiple-choice tasks write them: the question, then one
// option a line lettered A, B, C, ..., then the task's instruction.
//
// An option may wrap onto further lines: a line is the next option only
// when it opens with the next letter; between two options every other line
// belongs to the option above. After the last option, the lines are the
// instruction's, unless exact says where the options end (the export's
// layout, whose last line is its post prompt): then they are the last
// option's too.
//
// Every line lettered A is a possible start. A reading is refused when a
// line it puts inside an option, or after the options, itself reads as an
// option (a question listing "A. ..." lines before the real options is
// read from the real ones; an option holding "\nB. ..." is ambiguous). One
// reading left is the options; none or several is an error saying why;
// no line lettered A, or no run of two, is no options (the caller tries
// options written inline). Errors number the lines from first.
func readOptionLines(lines []string, first int, exact bool) (start int, opts []string, err error) {
	end := len(lines)
	letters := make([]string, len(lines))
	for i, l := range lines {
		letters[i] = markerLetter(l)
	}
	var good []promptParse
	var why string
	for i := range lines {
		if letters[i] != "A" {
			continue
		}
		p := promptParse{marks: []int{i}, end: end}
		for j := i + 1; j < end; j++ {
			if letters[j] == answer.Letter(len(p.marks)) {
				p.marks = append(p.marks, j)
			}
		}
		if len(p.marks) < 2 {
			continue
		}
		if !exact {
			p.end = p.marks[len(p.marks)-1] + 1
		}
		if bad := strayMarker(letters, p, exact); bad >= 0 {
			if why == "" {
				why = fmt.Sprintf("line %d (%q) reads as an option inside the options that start at line %d", first+bad, strings.TrimSpace(lines[bad]), first+i)
			}
			continue
		}
		good = append(good, p)
	}
	switch {
	case len(good) == 1:
		p := good[0]
		opts = make([]string, len(p.marks))
		for k, m := range p.marks {
			stop := p.end
			if k+1 < len(p.marks) {
				stop = p.marks[k+1]
			}
			text := markerText(lines[m])
			if exact && strings.HasPrefix(lines[m], answer.Letter(k)+". ") {
				text = lines[m][3:] // the export wrote "A. " + the text
			}
			if rest := lines[m+1 : stop]; len(rest) > 0 {
				text += "\n" + strings.Join(rest, "\n")
			}
			if !exact {
				text = strings.TrimSpace(text)
			}
			opts[k] = text
		}
		return p.marks[0], opts, nil
	case len(good) > 1:
		return 0, nil, fmt.Errorf("ambiguous options: the lettered lines read as options from line %d and from line %d", first+good[0].marks[0], first+good[1].marks[0])
	case why != "":
		return 0, nil, fmt.Errorf("ambiguous options: %s", why)
	}
	return 0, nil, nil
}

// strayMarker is the first line that a reading puts inside an option, or
// after the options and before the instruction, that itself reads as an
// option; -1 when there is none.
func strayMarker(letters []string, p promptParse, exact bool) int {
	inOption := map[int]bool{}
	for _, m := range p.marks {
		inOption[m] = true
	}
	last := len(letters)
	if exact {
		last = p.end
	}
	for j := p.marks[0] + 1; j < last; j++ {
		if !inOption[j] && letters[j] != "" {
			return j
		}
	}
	return -1
}
