package decode

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size says how large returned frames are. Both sides keep the display
// aspect ratio (pixel aspect ratio and rotation applied). The zero Size
// keeps the display size.
type Size struct {
	// Short, if positive, scales the shorter side to exactly Short pixels
	// (what CLIP-style preprocessing does before its centre crop).
	Short int
	// MaxLong, if positive, then shrinks the frame so that its longer side
	// is at most MaxLong pixels; it never enlarges.
	MaxLong int
}

// ParseSize reads "S" or "short:S" (short side S), "max:L" (long side at
// most L), or "short:S,max:L".
func ParseSize(spec string) (Size, error) {
	var s Size
	if spec == "" || spec == "native" {
		return s, nil
	}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			k, v = "short", part
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 16384 {
			return Size{}, fmt.Errorf("size %q: %q is not a side length from 1 to 16384", spec, v)
		}
		switch k {
		case "short":
			s.Short = n
		case "max":
			s.MaxLong = n
		default:
			return Size{}, fmt.Errorf("size %q: unknown part %q (want S, short:S or max:L)", spec, k)
		}
	}
	return s, nil
}

func (s Size) String() string {
	switch {
	case s.Short > 0 && s.MaxLong > 0:
		return fmt.Sprintf("short:%d,max:%d", s.Short, s.MaxLong)
	case s.Short > 0:
		return fmt.Sprintf("short:%d", s.Short)
	case s.MaxLong > 0:
		return fmt.Sprintf("max:%d", s.MaxLong)
	}
	return "native"
}

// Of returns the output width and height for a picture displayed at w x h.
func (s Size) Of(w, h int) (int, int) {
	fw, fh := float64(w), float64(h)
	if s.Short > 0 {
		f := float64(s.Short) / math.Min(fw, fh)
		fw, fh = fw*f, fh*f
	}
	if s.MaxLong > 0 && math.Max(fw, fh) > float64(s.MaxLong) {
		f := float64(s.MaxLong) / math.Max(fw, fh)
		fw, fh = fw*f, fh*f
	}
	return max(1, int(math.Round(fw))), max(1, int(math.Round(fh)))
}
