package truth

import (
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness/metrics"
)

func TestMinItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    float64
		m    int
		want int
	}{
		// 0.25^3 = 0.0156 < 0.05; 0.25^2 = 0.0625 is not.
		{0.25, 1, 3},
		// 0.05/8 = 0.00625: 0.25^4 = 0.0039 passes, 0.25^3 = 0.0156 does not.
		{0.25, 8, 4},
		// yes/no: 0.5^8 = 0.0039 < 0.00625 < 0.5^7 = 0.0078.
		{0.5, 8, 8},
		{0.2, 8, 4}, // 0.2^4 = 0.0016, 0.2^3 = 0.008
		{1, 8, 0},
		{0, 8, 0},
	}
	for _, tt := range tests {
		got := MinItems(tt.c, tt.m)
		if got != tt.want {
			t.Errorf("MinItems(%g, %d) = %d, want %d", tt.c, tt.m, got, tt.want)
		}
		if got > 0 && !(math.Pow(tt.c, float64(got)) < metrics.Alpha/float64(tt.m) && math.Pow(tt.c, float64(got-1)) >= metrics.Alpha/float64(tt.m)) {
			t.Errorf("MinItems(%g, %d) = %d is not the least n with c^n < alpha/m", tt.c, tt.m, got)
		}
	}
}
