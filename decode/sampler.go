package decode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Clip bounds the part of a video an item is about. The zero Clip is the
// whole video; End <= 0 means "to the end".
type Clip struct {
	Start, End time.Duration
}

// A Sampler chooses the times at which to take frames. It is a pure
// function of the probe, the clip and the item's seed, so a sampling plan
// can be computed, tested and cached without decoding anything. Each time
// selects the last frame shown at or before it (see Decoder.Frames).
type Sampler interface {
	Times(in Info, clip Clip, seed uint64) ([]time.Duration, error)
	// String returns the spec that ParseSampler turns back into the sampler.
	String() string
}

// Sample parses spec and applies it.
func Sample(in Info, clip Clip, spec string, seed uint64) ([]time.Duration, error) {
	s, err := ParseSampler(spec)
	if err != nil {
		return nil, err
	}
	return s.Times(in, clip, seed)
}

// defaultGrid is the frame count of the Video-Index protocol (32 frames;
// seed 002, section 3), used where a spec names no count.
const defaultGrid = 32

// ParseSampler reads a sampler spec:
//
//	uniform:N          N frames on the grid round(i(n-1)/(N-1)) over the clip's n frames
//	centre             the middle frame of the clip ("center" also accepted)
//	fps:R[,max:M]      one frame every 1/R seconds from the clip start, at most M
//	                   (then M of them, evenly spread)
//	window:N,frac:F    N uniform frames inside one contiguous fraction F of the
//	                   clip, its start drawn from the item seed
//	half:H[,n:N]       N uniform frames (default 32) inside half H (1 or 2)
//	offset:K[,n:N][,steps:S]  N frames (default 32), one per equal segment, at
//	                   K/S of the way into each (S default 3): Video-Index's
//	                   shifted grids off1/off2 are offset:1 and offset:2
//	chunk:K[,of:M][,n:N]  N frames (default 16) inside chunk K (1..M) of M (default
//	                   8) equal contiguous chunks of the clip, on the Video-Oasis
//	                   authors' integer grid (their redundancy test)
//	times:t1,t2,...    the given times in seconds from the clip start
//
// Shuffling is not a sampler: decode once and permute with Shuffle.
func ParseSampler(spec string) (Sampler, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	bad := func(format string, args ...any) error {
		return fmt.Errorf("sampler %q: %s", spec, fmt.Sprintf(format, args...))
	}
	params := func(allowed ...string) (first string, kv map[string]string, err error) {
		parts := strings.Split(rest, ",")
		first = strings.TrimSpace(parts[0])
		kv = map[string]string{}
		for _, p := range parts[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(p), ":")
			if !ok || !contains(allowed, k) {
				return "", nil, bad("unknown parameter %q (allowed: %s)", p, strings.Join(allowed, ", "))
			}
			kv[k] = v
		}
		return first, kv, nil
	}
	count := func(what, s string, def int) (int, error) {
		if s == "" {
			if def > 0 {
				return def, nil
			}
			return 0, bad("%s is missing", what)
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100000 {
			return 0, bad("%s must be an integer from 1 to 100000, got %q", what, s)
		}
		return n, nil
	}
	switch name {
	case "uniform":
		n, err := count("frame count", rest, 0)
		if err != nil {
			return nil, err
		}
		return uniformSampler{n: n}, nil
	case "centre", "center":
		if rest != "" {
			return nil, bad("centre takes no parameters")
		}
		return centreSampler{}, nil
	case "fps":
		first, kv, err := params("max")
		if err != nil {
			return nil, err
		}
		r, err := strconv.ParseFloat(first, 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			return nil, bad("rate must be a positive number of frames per second, got %q", first)
		}
		m := 0
		if v, ok := kv["max"]; ok {
			if m, err = count("max", v, 0); err != nil {
				return nil, err
			}
		}
		return fpsSampler{rate: r, max: m}, nil
	case "window":
		first, kv, err := params("frac")
		if err != nil {
			return nil, err
		}
		n, err := count("frame count", first, 0)
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(kv["frac"], 64)
		if err != nil || !(f > 0 && f <= 1) {
			return nil, bad("frac must be in (0, 1], got %q", kv["frac"])
		}
		return windowSampler{n: n, frac: f}, nil
	case "half":
		first, kv, err := params("n")
		if err != nil {
			return nil, err
		}
		if first != "1" && first != "2" {
			return nil, bad("half must be 1 or 2, got %q", first)
		}
		n, err := count("n", kv["n"], defaultGrid)
		if err != nil {
			return nil, err
		}
		return halfSampler{half: int(first[0] - '0'), n: n}, nil
	case "offset":
		first, kv, err := params("n", "steps")
		if err != nil {
			return nil, err
		}
		steps, err := count("steps", kv["steps"], 3)
		if err != nil {
			return nil, err
		}
		k, err := strconv.Atoi(first)
		if err != nil || k < 0 || k >= steps {
			return nil, bad("offset must be an integer from 0 to steps-1 (%d), got %q", steps-1, first)
		}
		n, err := count("n", kv["n"], defaultGrid)
		if err != nil {
			return nil, err
		}
		return offsetSampler{k: k, steps: steps, n: n}, nil
	case "chunk":
		first, kv, err := params("of", "n")
		if err != nil {
			return nil, err
		}
		of, err := count("of", kv["of"], 8)
		if err != nil {
			return nil, err
		}
		k, err := strconv.Atoi(first)
		if err != nil || k < 1 || k > of {
			return nil, bad("chunk must be an integer from 1 to of (%d), got %q", of, first)
		}
		n, err := count("n", kv["n"], 16)
		if err != nil {
			return nil, err
		}
		return chunkSampler{k: k, of: of, n: n}, nil
	case "times":
		if rest == "" {
			return nil, bad("times needs at least one time")
		}
		var ts []time.Duration
		for _, p := range strings.Split(rest, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || !(v >= 0 && v <= maxSampleSeconds) {
				return nil, bad("time %q is not a number of seconds from 0 to %g", p, float64(maxSampleSeconds))
			}
			ts = append(ts, time.Duration(math.Round(v*1e9)))
		}
		return timesSampler{times: ts}, nil
	}
	return nil, bad("unknown sampler %q (want uniform, centre, fps, window, half, offset, chunk or times)", name)
}

// maxSampleSeconds bounds a time in a sampler spec: a time.Duration holds
// about 292 years, and no video is longer than 31 (1e9 s).
const maxSampleSeconds = 1e9

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// frameGrid is the clip as a run of n frames of equal length, the model
// the samplers reason in: frame k is shown from at(k) to at(k+1).
type frameGrid struct {
	first time.Duration // when frame 0 of the video starts
	step  float64       // seconds per frame
	lo, n int           // the clip's frames are lo .. lo+n-1
}

// mid is the middle of frame k of the clip: asking for it selects frame k
// even when timestamps are rounded either way.
func (g frameGrid) mid(k int) time.Duration {
	return g.first + time.Duration(math.Round((float64(g.lo+k)+0.5)*g.step*1e9))
}

func newFrameGrid(in Info, clip Clip) (frameGrid, error) {
	fps := in.FrameRate
	if !(fps > 0) && in.Frames > 0 && in.Duration > 0 {
		fps = float64(in.Frames) / in.Duration.Seconds()
	}
	if !(fps > 0) {
		return frameGrid{}, fmt.Errorf("sample %s: frame rate unknown", in.Path)
	}
	total := in.Frames
	if est := int(math.Round(in.Duration.Seconds() * fps)); total <= 0 || (in.Duration > 0 && abs(total-est) > 1) {
		// Frame counts from containers and durations disagree on variable
		// frame rate files; the duration is what the times are measured in.
		total = est
	}
	if total <= 0 {
		return frameGrid{}, fmt.Errorf("sample %s: duration unknown", in.Path)
	}
	g := frameGrid{first: in.Start, step: 1 / fps}
	if clip.End > 0 && clip.End <= clip.Start {
		return frameGrid{}, fmt.Errorf("sample %s: clip end %v is not after its start %v", in.Path, clip.End, clip.Start)
	}
	// The video shows frames from in.Start to the end of its last frame;
	// a clip that does not overlap that span has nothing to sample.
	end := in.Start + time.Duration(math.Round(float64(total)*g.step*1e9))
	if in.Duration > 0 {
		end = max(end, in.End())
	}
	if clip.Start >= end {
		return frameGrid{}, fmt.Errorf("sample %s: clip starts at %v, at or after the video's end %v: %w", in.Path, clip.Start, end, ErrClipOutside)
	}
	if clip.End > 0 && clip.End <= in.Start {
		return frameGrid{}, fmt.Errorf("sample %s: clip ends at %v, before the video's first frame at %v: %w", in.Path, clip.End, in.Start, ErrClipOutside)
	}
	lo, hi := 0, total // frames [lo, hi): those that start inside the clip
	if clip.Start > in.Start {
		lo = int(math.Ceil((clip.Start-in.Start).Seconds()*fps - 1e-6))
	}
	if clip.End > 0 && clip.End < end {
		hi = int(math.Ceil((clip.End-in.Start).Seconds()*fps - 1e-6))
	}
	lo, hi = max(lo, 0), min(hi, total)
	if hi <= lo {
		// No frame starts inside the clip (one shorter than a frame, or
		// one inside the last frame: 6.49-6.5 s of a 6.5 s video): it
		// shows the frame on screen at its start.
		k := int(math.Floor((clip.Start-in.Start).Seconds()*fps + 1e-6))
		lo = min(max(k, 0), total-1)
		hi = lo + 1
	}
	g.lo, g.n = lo, hi-lo
	return g, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// maxSamplerFrames bounds the frames one sampler picks, as ParseSampler
// bounds the counts it is given.
const maxSamplerFrames = 100000

// spreadLarge is spread(n, m) for an n too large for a slice of n (or
// for an int): round(i(n-1)/(m-1)) for i < m, as float64 values.
func spreadLarge(n float64, m int) []float64 {
	out := make([]float64, m)
	if m == 1 {
		out[0] = math.Floor((n - 1) / 2)
		return out
	}
	for i := range out {
		out[i] = math.Round(float64(i) * (n - 1) / float64(m-1))
	}
	return out
}

// spread returns m frame numbers of 0..n-1 on the grid round(i(n-1)/(m-1)).
func spread(n, m int) []int {
	out := make([]int, m)
	if m == 1 {
		out[0] = (n - 1) / 2
		return out
	}
	for i := range out {
		out[i] = int(math.Round(float64(i) * float64(n-1) / float64(m-1)))
	}
	return out
}

func (g frameGrid) times(frames []int, off int) []time.Duration {
	out := make([]time.Duration, len(frames))
	for i, k := range frames {
		out[i] = g.mid(off + k)
	}
	return out
}

type uniformSampler struct{ n int }

func (s uniformSampler) String() string { return fmt.Sprintf("uniform:%d", s.n) }

func (s uniformSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	return g.times(spread(g.n, s.n), 0), nil
}

type centreSampler struct{}

func (centreSampler) String() string { return "centre" }

func (centreSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	return g.times([]int{(g.n - 1) / 2}, 0), nil
}

type fpsSampler struct {
	rate float64
	max  int
}

func (s fpsSampler) String() string {
	r := strconv.FormatFloat(s.rate, 'g', -1, 64)
	if s.max > 0 {
		return fmt.Sprintf("fps:%s,max:%d", r, s.max)
	}
	return "fps:" + r
}

func (s fpsSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	length := float64(g.n) * g.step
	fcount := math.Max(math.Ceil(length*s.rate-1e-9), 1)
	if s.max == 0 && fcount > maxSamplerFrames {
		// fps:1e7 asked for 3e8 times of a 30 s video, and the slices
		// alone ran the process out of memory.
		return nil, fmt.Errorf("sample %s: sampler %s picks %.0f frames from the %.3gs clip, more than %d: lower the rate or add max:M", in.Path, s, fcount, length, maxSamplerFrames)
	}
	// Frame j of the sampler is the one shown at start + j/R; with max:M
	// only the M picked ones are computed.
	frameOf := func(j float64) int { return int(math.Min(math.Floor(j/s.rate/g.step+1e-9), float64(g.n-1))) }
	var js []float64
	if s.max > 0 && fcount > float64(s.max) {
		js = spreadLarge(fcount, s.max)
	} else {
		js = make([]float64, int(fcount))
		for j := range js {
			js[j] = float64(j)
		}
	}
	frames := make([]int, len(js))
	for i, j := range js {
		frames[i] = frameOf(j)
	}
	return g.times(frames, 0), nil
}

type windowSampler struct {
	n    int
	frac float64
}

func (s windowSampler) String() string {
	return fmt.Sprintf("window:%d,frac:%s", s.n, strconv.FormatFloat(s.frac, 'g', -1, 64))
}

// windowSeedStream separates the window draw from other uses of an item's
// seed (an arbitrary constant: the ASCII bytes of "window").
const windowSeedStream = 0x77696e646f77

func (s windowSampler) Times(in Info, clip Clip, seed uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	w := max(1, int(math.Round(s.frac*float64(g.n))))
	r := rand.New(rand.NewPCG(seed, windowSeedStream))
	off := r.IntN(g.n - w + 1)
	return g.times(spread(w, s.n), off), nil
}

type halfSampler struct{ half, n int }

func (s halfSampler) String() string { return fmt.Sprintf("half:%d,n:%d", s.half, s.n) }

func (s halfSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	first := (g.n + 1) / 2 // the first half gets the middle frame of an odd clip
	if s.half == 1 {
		return g.times(spread(first, s.n), 0), nil
	}
	if g.n-first < 1 {
		return g.times(spread(1, s.n), 0), nil
	}
	return g.times(spread(g.n-first, s.n), first), nil
}

type offsetSampler struct{ k, steps, n int }

func (s offsetSampler) String() string {
	return fmt.Sprintf("offset:%d,n:%d,steps:%d", s.k, s.n, s.steps)
}

func (s offsetSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	frames := make([]int, s.n)
	seg := float64(g.n) / float64(s.n)
	for i := range frames {
		frames[i] = min(int(math.Floor((float64(i)+float64(s.k)/float64(s.steps))*seg)), g.n-1)
	}
	return g.times(frames, 0), nil
}

// chunkSampler takes n frames inside chunk k of of equal contiguous chunks
// of the clip, as the Video-Oasis authors' redundancy test reads a video
// (ambiguity/redundancy.py chunk_frame_indices and video_io.py
// uniform_indices): on the clip's frames 0..e, the chunk edges are
// floor(j(e+1)/of) (np.linspace(0, e+1, of+1, dtype=int)), chunk k spans
// [a, b] with a = min(edge(k-1), e) and b = min(max(edge(k)-1, a), e), and
// its frames are a + floor(i(b-a)/(n-1)) (np.linspace(a, b, n, dtype=int);
// a alone for n = 1). The integer arithmetic is exact where numpy's
// floating linspace may round a whole value down.
type chunkSampler struct{ k, of, n int }

func (s chunkSampler) String() string { return fmt.Sprintf("chunk:%d,of:%d,n:%d", s.k, s.of, s.n) }

func (s chunkSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	g, err := newFrameGrid(in, clip)
	if err != nil {
		return nil, err
	}
	return g.times(chunkFrames(g.n, s.k, s.of, s.n), 0), nil
}

// chunkFrames is chunkSampler's frames of a clip of total frames.
func chunkFrames(total, k, of, n int) []int {
	last := total - 1
	edge := func(j int) int { return int(int64(j) * int64(total) / int64(of)) }
	a := min(edge(k-1), last)
	b := min(max(edge(k)-1, a), last)
	out := make([]int, n)
	for i := range out {
		if n > 1 {
			out[i] = a + int(int64(i)*int64(b-a)/int64(n-1))
		} else {
			out[i] = a
		}
	}
	return out
}

type timesSampler struct{ times []time.Duration }

func (s timesSampler) String() string {
	parts := make([]string, len(s.times))
	for i, t := range s.times {
		parts[i] = strconv.FormatFloat(t.Seconds(), 'g', -1, 64)
	}
	return "times:" + strings.Join(parts, ",")
}

func (s timesSampler) Times(in Info, clip Clip, _ uint64) ([]time.Duration, error) {
	base := max(clip.Start, 0)
	end := in.End()
	if base >= end {
		return nil, fmt.Errorf("sample %s: clip starts at %v, at or after the video's end %v: %w", in.Path, base, end, ErrClipOutside)
	}
	if clip.End > 0 && clip.End < end {
		end = clip.End
	}
	out := make([]time.Duration, len(s.times))
	for i, t := range s.times {
		if t > end-base { // not base+t > end, which can overflow
			return nil, fmt.Errorf("sample %s: time %v from the clip start %v is past the clip's end %v", in.Path, t, base, end)
		}
		out[i] = base + t
	}
	return out, nil
}

// shuffleSeedStream separates shuffles from other uses of an item's seed
// (an arbitrary constant: the ASCII bytes of "shuffle").
const shuffleSeedStream = 0x73687566666c65

// Shuffle returns a permutation of 0..n-1 drawn from seed: the order in
// which to show an already decoded frame set for a shuffled-frames probe.
func Shuffle(n int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, shuffleSeedStream))
	return r.Perm(n)
}
