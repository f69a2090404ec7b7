package gpu

import "testing"

func TestParseBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want uint64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "4096", want: 4096},
		{in: "40GiB", want: 40 << 30},
		{in: " 512 MiB ", want: 512 << 20},
		{in: "1.5GB", want: 1500000000},
		{in: "2TiB", want: 2 << 40},
		{in: "100B", want: 100},
		{in: "", bad: true},
		{in: "-1GiB", bad: true},
		{in: "lots", bad: true},
		{in: "4 GiBs", bad: true},
	} {
		got, err := ParseBytes(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseBytes(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
