package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseBytes reads a memory size as --device-memory takes it: a number of
// bytes, or a number with a unit of KiB, MiB, GiB or TiB (powers of 1024)
// or KB, MB, GB or TB (powers of 1000), such as "40GiB" or "1.5GB".
func ParseBytes(s string) (uint64, error) {
	v := strings.TrimSpace(s)
	units := []struct {
		suffix string
		scale  float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
	}
	scale := 1.0
	for _, u := range units {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			v, scale = strings.TrimSpace(num), u.scale
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f*scale > 1<<62 {
		return 0, fmt.Errorf("memory size %q: want bytes or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB, such as 40GiB", s)
	}
	return uint64(f * scale), nil
}
