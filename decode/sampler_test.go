package decode

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tenSeconds is a probe of a 10 s, 30 fps video: frames 0..299.
var tenSeconds = Info{Path: "ten.mp4", FrameRate: 30, Frames: 300, Duration: 10 * time.Second}

// frameNumbers maps times back to the frame shown at each, at 30 fps.
func frameNumbers(ts []time.Duration, start time.Duration) []int {
	out := make([]int, len(ts))
	for i, t := range ts {
		out[i] = int(math.Floor((t - start).Seconds() * 30))
	}
	return out
}

func TestSamplers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		spec   string
		clip   Clip
		frames []int
	}{
		{"uniform:5 takes the first and last frame and the quarters", "uniform:5", Clip{}, []int{0, 75, 150, 224, 299}},
		{"uniform:1 is the middle frame", "uniform:1", Clip{}, []int{149}},
		{"uniform:3 inside a clip uses the clip's frames", "uniform:3", Clip{Start: 2 * time.Second, End: 4 * time.Second}, []int{60, 90, 119}},
		{"centre is the middle frame", "centre", Clip{}, []int{149}},
		{"center is centre", "center", Clip{Start: time.Second, End: 2 * time.Second}, []int{44}},
		{"fps:1 takes one frame a second from the start", "fps:1", Clip{}, []int{0, 30, 60, 90, 120, 150, 180, 210, 240, 270}},
		{"fps:1,max:4 spreads four of them", "fps:1,max:4", Clip{}, []int{0, 90, 180, 270}},
		{"fps:0.5 in a clip starts at the clip", "fps:0.5", Clip{Start: 3 * time.Second, End: 8 * time.Second}, []int{90, 150, 210}},
		{"half:1 covers the first half", "half:1,n:3", Clip{}, []int{0, 75, 149}},
		{"half:2 covers the second half", "half:2,n:3", Clip{}, []int{150, 225, 299}},
		{"offset:0 starts each of n segments", "offset:0,n:4", Clip{}, []int{0, 75, 150, 225}},
		{"offset:1 is a third into each segment", "offset:1,n:4", Clip{}, []int{25, 100, 175, 250}},
		{"offset:2,steps:4 is half way into each", "offset:2,n:4,steps:4", Clip{}, []int{37, 112, 187, 262}},
		// The Video-Oasis authors' eight chunks of frames 0..299: edges
		// floor(300j/8) = 0, 37, 75, ..., 262, 300; chunk 1 is 0..36,
		// chunk 2 37..74, chunk 8 262..299, and four frames of a..b are
		// a + floor(i(b-a)/3).
		{"chunk:1 of 8 is frames 0..36", "chunk:1,of:8,n:4", Clip{}, []int{0, 12, 24, 36}},
		{"chunk:2 of 8 is frames 37..74", "chunk:2,n:4", Clip{}, []int{37, 49, 61, 74}},
		{"chunk:8 of 8 is frames 262..299", "chunk:8,of:8,n:4", Clip{}, []int{262, 274, 286, 299}},
		{"chunk:1,n:1 is the chunk's first frame", "chunk:1,n:1", Clip{}, []int{0}},
		{"times are seconds from the clip start", "times:0,1.5,2", Clip{Start: time.Second}, []int{30, 75, 90}},
		// A clip in which no frame starts shows the frame on screen at its
		// start; "clip starts at 9.99s, after the video's end 10s" was the
		// error for the last one.
		// fps:1e7 built 1e8 times before max:4 kept four.
		{"fps:1e7,max:4 computes only the four it keeps", "fps:1e7,max:4", Clip{}, []int{0, 99, 199, 299}},
		{"fps:1e300,max:2 is the first and last frame", "fps:1e300,max:2", Clip{}, []int{0, 299}},
		{"a clip inside the last frame takes it", "uniform:4", Clip{Start: 9990 * time.Millisecond, End: 10 * time.Second}, []int{299, 299, 299, 299}},
		{"a clip shorter than a frame takes the one shown", "centre", Clip{Start: 2010 * time.Millisecond, End: 2020 * time.Millisecond}, []int{60}},
		{"a clip past the end takes the frames up to it", "uniform:2", Clip{Start: 9 * time.Second, End: 20 * time.Second}, []int{270, 299}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := Sample(tenSeconds, tt.clip, tt.spec, 7)
			if err != nil {
				t.Fatal(err)
			}
			if got := frameNumbers(ts, 0); !reflect.DeepEqual(got, tt.frames) {
				t.Errorf("%s: frames %v, want %v", tt.spec, got, tt.frames)
			}
		})
	}
}

func TestUniformGridMatchesFormula(t *testing.T) {
	t.Parallel()
	// round(i(n-1)/(N-1)) for every N up to 64 on a 300-frame clip.
	for n := 2; n <= 64; n++ {
		ts, err := Sample(tenSeconds, Clip{}, "uniform:"+itoa(n), 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range frameNumbers(ts, 0) {
			if want := int(math.Round(float64(i) * 299 / float64(n-1))); f != want {
				t.Fatalf("uniform:%d position %d: frame %d, want %d", n, i, f, want)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestWindowSamplerIsSeededAndContiguous(t *testing.T) {
	t.Parallel()
	starts := map[int]bool{}
	for seed := uint64(0); seed < 50; seed++ {
		a, err := Sample(tenSeconds, Clip{}, "window:8,frac:0.1", seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Sample(tenSeconds, Clip{}, "window:8,frac:0.1", seed)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: two draws differ: %v and %v", seed, a, b)
		}
		f := frameNumbers(a, 0)
		if f[len(f)-1]-f[0] != 29 || !slices.IsSorted(f) {
			t.Fatalf("seed %d: window frames %v do not span one tenth (30 frames)", seed, f)
		}
		starts[f[0]] = true
	}
	if len(starts) < 20 {
		t.Errorf("50 seeds gave only %d window starts", len(starts))
	}
}

func TestSamplerHonoursVideoStart(t *testing.T) {
	t.Parallel()
	in := tenSeconds
	in.Start = 500 * time.Millisecond
	ts, err := Sample(in, Clip{}, "uniform:2", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := frameNumbers(ts, in.Start); !reflect.DeepEqual(got, []int{0, 299}) {
		t.Errorf("frames %v, want [0 299] counted from the first frame at 0.5 s", got)
	}
}

func TestParseSamplerErrors(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"", "uniform", "uniform:0", "uniform:x", "fps:0", "fps:-1", "fps:1,max:0", "fps:1,cap:3",
		"window:8", "window:8,frac:0", "window:8,frac:1.5", "half:3", "offset:3", "offset:-1", "chunk:0", "chunk:9", "chunk:3,of:2", "chunk:1,n:0",
		"times:", "times:1,x", "times:-1", "centre:1", "random:4",
	} {
		if _, err := ParseSampler(spec); err == nil {
			t.Errorf("ParseSampler(%q) succeeded, want an error", spec)
		} else if !strings.Contains(err.Error(), "sampler") {
			t.Errorf("ParseSampler(%q): error %q does not say it is about the sampler", spec, err)
		}
	}
}

func TestSamplerStringRoundTrips(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"uniform:32", "centre", "fps:1", "fps:0.5,max:16", "window:32,frac:0.1", "half:2,n:32", "offset:1,n:32,steps:3", "chunk:3,of:8,n:16", "times:0,1.5"} {
		s, err := ParseSampler(spec)
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != spec {
			t.Errorf("ParseSampler(%q).String() = %q", spec, s.String())
		}
	}
}

func TestSampleErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Info
		clip Clip
		spec string
	}{
		{"unknown frame rate and count", Info{Path: "x", Duration: time.Second}, Clip{}, "uniform:4"},
		{"clip ends before it starts", tenSeconds, Clip{Start: 3 * time.Second, End: 2 * time.Second}, "uniform:4"},
		{"clip after the video", tenSeconds, Clip{Start: 20 * time.Second}, "uniform:4"},
		{"time past the clip", tenSeconds, Clip{End: 2 * time.Second}, "times:3"},
		{"fps:1e7 with no max (1e8 frames)", tenSeconds, Clip{}, "fps:1e7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ts, err := Sample(tt.in, tt.clip, tt.spec, 0); err == nil {
				t.Errorf("got times %v, want an error", ts)
			}
		})
	}
}

// TestClipOutsideVideo: a clip that does not overlap the video is an
// ErrClipOutside for every sampler, so that a harness fails that item
// alone, and the message says where the video ends.
func TestClipOutsideVideo(t *testing.T) {
	t.Parallel()
	started := tenSeconds
	started.Start = 2 * time.Second
	for _, tc := range []struct {
		name string
		in   Info
		clip Clip
		msg  string
	}{
		{"a clip starting at the end", tenSeconds, Clip{Start: 10 * time.Second}, "clip starts at 10s, at or after the video's end 10s"},
		{"a clip after the end", tenSeconds, Clip{Start: 20 * time.Second, End: 21 * time.Second}, "clip starts at 20s"},
		{"a clip before the first frame", started, Clip{Start: 0, End: time.Second}, "before the video's first frame at 2s"},
	} {
		for _, spec := range []string{"uniform:4", "centre", "fps:1", "window:4,frac:0.1", "half:1,n:2", "offset:1,n:2", "times:0"} {
			if spec == "times:0" && tc.clip.Start < tc.in.Start {
				continue // times count from the clip start, wherever the video starts
			}
			_, err := Sample(tc.in, tc.clip, spec, 3)
			if !errors.Is(err, ErrClipOutside) {
				t.Errorf("%s, %s: %v, want ErrClipOutside", tc.name, spec, err)
				continue
			}
			if spec != "times:0" && !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s, %s: %q does not say %q", tc.name, spec, err, tc.msg)
			}
		}
	}
}

func TestShuffleIsASeededPermutation(t *testing.T) {
	t.Parallel()
	a, b, c := Shuffle(32, 1), Shuffle(32, 1), Shuffle(32, 2)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave two orders")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 1 and 2 gave the same order")
	}
	s := slices.Clone(a)
	slices.Sort(s)
	for i, v := range s {
		if v != i {
			t.Fatalf("%v is not a permutation of 0..31", a)
		}
	}
}
