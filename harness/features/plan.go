package features

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
)

// A Set is one frame set every item asks of its clip: a sampler, and whether
// its frames are captioned too.
type Set struct {
	Name     string
	Sampler  decode.Sampler
	Captions bool
}

// UniformFrames is the frame count of the Video-Index protocol (section 3).
const UniformFrames = 32

// BagMaxFrames is the most frames bag-of-frames reads of a video: the
// Video-Oasis authors' --max-frames (2048: a 34-minute video at 1 fps
// whole, a longer one spread evenly). It was 256 before issue 32.
const BagMaxFrames = 2048

// The frame sets of the frame and order attackers.
var (
	// CentreSet is the single middle frame of the clip (Video-Index 3.5).
	CentreSet = Set{Name: "centre", Sampler: mustSampler("centre")}
	// BagSet is the ~1 fps set bag-of-frames ranks (Video-Oasis, section 4),
	// capped at BagMaxFrames spread evenly, as the authors' extraction
	// (src/criteria/temporal/bag_of_frames/features.py,
	// sampled_video_indices: one frame a second, else linspace to
	// --max-frames, 2048 by default in temporal/run.py).
	BagSet = Set{Name: "bag", Sampler: mustSampler(fmt.Sprintf("fps:1,max:%d", BagMaxFrames))}
	// UniformSet is the 32-frame protocol of Video-Index (section 3), whose
	// frames are captioned when CaptionSet asks for it.
	UniformSet, CaptionSet = UniformSets(UniformFrames)
)

// UniformSets returns the uniform set of n frames, without and with a
// caption per frame (UniformSet and CaptionSet are those of 32). Both are
// named "uniform": a run takes one of them.
func UniformSets(n int) (uniform, captioned Set) {
	s := mustSampler(fmt.Sprintf("uniform:%d", n))
	return Set{Name: "uniform", Sampler: s}, Set{Name: "uniform", Sampler: s, Captions: true}
}

func mustSampler(spec string) decode.Sampler {
	s, err := decode.ParseSampler(spec)
	if err != nil {
		panic(err)
	}
	return s
}

// clipOf is the part of the video an item is about.
func clipOf(it *harness.Item) decode.Clip {
	var c decode.Clip
	if it.Start != nil {
		c.Start = time.Duration(*it.Start * float64(time.Second))
	}
	if it.End != nil {
		c.End = time.Duration(*it.End * float64(time.Second))
	}
	return c
}

// A request is one frame set of one clip.
type request struct {
	clip decode.Clip
	set  Set
}

// planSampler is the plan of one video as a decode.Sampler: the sorted union
// of the times of every request, so that decode.Pool takes them in one pass.
type planSampler struct{ reqs []request }

func newPlan(reqs []request) *planSampler {
	reqs = slices.Clone(reqs)
	slices.SortFunc(reqs, func(a, b request) int {
		if c := strings.Compare(a.set.Sampler.String(), b.set.Sampler.String()); c != 0 {
			return c
		}
		if a.clip.Start != b.clip.Start {
			return int(a.clip.Start - b.clip.Start)
		}
		if a.clip.End != b.clip.End {
			return int(a.clip.End - b.clip.End)
		}
		if a.set.Captions != b.set.Captions {
			if a.set.Captions {
				return 1
			}
			return -1
		}
		return 0
	})
	reqs = slices.Compact(reqs)
	return &planSampler{reqs: reqs}
}

// Times returns the union of the requests' times, ascending. The clip
// argument is ignored: each request carries its own. A request whose clip
// lies outside the video adds nothing: its item fails alone
// (FailureClipOutside), not the video's other items.
func (p *planSampler) Times(in decode.Info, _ decode.Clip, seed uint64) ([]time.Duration, error) {
	var all []time.Duration
	for _, r := range p.reqs {
		ts, err := r.set.Sampler.Times(in, r.clip, seed)
		if errors.Is(err, decode.ErrClipOutside) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("frame set %s: %w", r.set.Name, err)
		}
		all = append(all, ts...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

// String lists the requests; it is part of the video's cache key.
func (p *planSampler) String() string {
	var b strings.Builder
	b.WriteString("plan(")
	for i, r := range p.reqs {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, "%s@%d-%d", r.set.Sampler, r.clip.Start, r.clip.End)
		if r.set.Captions {
			b.WriteString("+captions")
		}
	}
	b.WriteString(")")
	return b.String()
}

// captionTimes returns the times whose frames get a caption.
func (p *planSampler) captionTimes(in decode.Info, seed uint64) (map[time.Duration]bool, error) {
	out := map[time.Duration]bool{}
	for _, r := range p.reqs {
		if !r.set.Captions {
			continue
		}
		ts, err := r.set.Sampler.Times(in, r.clip, seed)
		if errors.Is(err, decode.ErrClipOutside) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			out[t] = true
		}
	}
	return out, nil
}
