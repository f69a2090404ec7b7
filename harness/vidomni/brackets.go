package vidomni

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Bracket is a named duration range: a video belongs to the first
// bracket whose Max (seconds, inclusive) it does not exceed; the last
// bracket has Max = +Inf.
type Bracket struct {
	Name string
	Max  float64
}

// DefaultBrackets are the paper's (section 3.2): short (<= 3 min), medium
// (4-30 min), long (>= 30 min). The paper leaves 3-4 min unassigned and
// puts exactly 30 min in both medium and long; here videos over 3 min up
// to 30 min inclusive are medium, longer ones long.
const DefaultBrackets = "short:180,medium:1800,long"

// ParseBrackets reads "NAME:MAX,NAME:MAX,...,NAME": bounds in seconds,
// increasing, the last bracket unbounded.
func ParseBrackets(spec string) ([]Bracket, error) {
	parts := strings.Split(spec, ",")
	var out []Bracket
	seen := map[string]bool{}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		name, maxText, bounded := strings.Cut(p, ":")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("brackets %q: part %d has no name", spec, i+1)
		}
		if seen[name] {
			return nil, fmt.Errorf("brackets %q: %q named twice", spec, name)
		}
		seen[name] = true
		last := i == len(parts)-1
		if last != !bounded {
			if last {
				return nil, fmt.Errorf("brackets %q: the last bracket %q takes everything longer; give it no bound", spec, name)
			}
			return nil, fmt.Errorf("brackets %q: %q needs an upper bound in seconds (NAME:MAX)", spec, name)
		}
		b := Bracket{Name: name, Max: math.Inf(1)}
		if bounded {
			v, err := strconv.ParseFloat(strings.TrimSpace(maxText), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("brackets %q: bound %q of %q is not a number of seconds > 0", spec, maxText, name)
			}
			if len(out) > 0 && v <= out[len(out)-1].Max {
				return nil, fmt.Errorf("brackets %q: bounds must increase (%g after %g)", spec, v, out[len(out)-1].Max)
			}
			b.Max = v
		}
		out = append(out, b)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("brackets %q: want at least two brackets", spec)
	}
	return out, nil
}

// bracketOf names the bracket of a duration in seconds.
func bracketOf(bs []Bracket, secs float64) string {
	for _, b := range bs {
		if secs <= b.Max {
			return b.Name
		}
	}
	return bs[len(bs)-1].Name
}

// String writes the brackets back in the form ParseBrackets reads.
func formatBrackets(bs []Bracket) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		if math.IsInf(b.Max, 1) {
			parts[i] = b.Name
		} else {
			parts[i] = b.Name + ":" + strconv.FormatFloat(b.Max, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}
