package decode

import (
	"testing"
	"time"
)

// FuzzParseSampler feeds arbitrary specs to the sampler parser and applies
// what it accepts to a 10 s, 30 fps probe: no panic, no time outside the
// video, and no more times than the parser's documented bound.
func FuzzParseSampler(f *testing.F) {
	for _, s := range []string{"uniform:32", "centre", "fps:1,max:4", "window:8,frac:0.25", "half:2,n:3", "offset:2,n:4,steps:4", "times:0,1.5,2", "uniform:100000", "fps:1e-300", "times:1e308"} {
		f.Add(s, int64(0), int64(0), uint64(7))
	}
	f.Fuzz(func(t *testing.T, spec string, start, end int64, seed uint64) {
		s, err := ParseSampler(spec)
		if err != nil {
			return
		}
		clip := Clip{Start: time.Duration(start), End: time.Duration(end)}
		ts, err := s.Times(tenSeconds, clip, seed)
		if err != nil {
			return
		}
		if len(ts) > 100000 {
			t.Fatalf("%s gave %d times", spec, len(ts))
		}
		for _, x := range ts {
			if x < tenSeconds.Start || x > tenSeconds.End() {
				t.Fatalf("%s (clip %v) gave time %v outside the video", spec, clip, x)
			}
		}
	})
}
