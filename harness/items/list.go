package items

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ParseList reads a list held in a table cell: JSON (["a", "b"]) or the
// Python literal pandas writes when a column holds lists (['a', "b's"]),
// including numpy's array printing without commas (['a' 'b']).
// VLMEvalKit's video TSVs hold options this way (Video-MME's candidates,
// with their "A. " prefixes), and lmms-eval's docs when a dataset column
// is a list; a cell that is no list is an error quoting it.
func ParseList(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	var out []string
	if json.Unmarshal([]byte(s), &out) == nil {
		return out, nil
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("%q is not a list", truncate(s))
	}
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == ' ' || c == ',' || c == '\n' || c == '\t':
			i++
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(body) && body[j] != c; j++ {
				if body[j] == '\\' && j+1 < len(body) {
					j++
					switch body[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(body[j])
					}
					continue
				}
				b.WriteByte(body[j])
			}
			if j == len(body) {
				return nil, fmt.Errorf("%q: unterminated string", truncate(s))
			}
			out = append(out, b.String())
			i = j + 1
		default:
			return nil, fmt.Errorf("%q: unexpected %q at byte %d of the list", truncate(s), c, i+1)
		}
	}
	return out, nil
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
