package features

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
)

// An ImageEncoder is the image tower of the image_text role on one device
// (models.ImageText).
type ImageEncoder interface {
	EmbedImages(ctx context.Context, b models.ImageBatch) ([][]float32, error)
	Dim() int
}

// A Captioner writes one caption per frame, without any question
// (models.Captioner on one device).
type Captioner interface {
	CaptionFrames(ctx context.Context, frames []imageprep.Frame) ([]models.Caption, error)
}

// Options configure Extract.
type Options struct {
	// Root is the video root items' videos are resolved under
	// (harness.ResolveVideo).
	Root string
	// CacheDir holds the features of every video computed so far.
	CacheDir string
	// Sets are the frame sets every item asks of its clip.
	Sets []Set
	// Image holds one image tower per device; each runs on its own
	// goroutine, fed from one queue. ImageName identifies their weights (a
	// hash of the files) for the cache key.
	Image     []ImageEncoder
	ImageName string
	// DeviceImage, when set, holds one DeviceImageEncoder per device, in
	// Image's order: the GPU frame path. Each video's frame sets are
	// decoded and embedded on its device's GPU from NVDEC's surfaces, with
	// no host copy (the host decoders take only the frames the captioner
	// and the VLM sets read); ImageName must then name that path, since
	// its resize differs from the host path's. A video the device path
	// refuses (decode.ErrNotOnDevice) is embedded from host frames, as
	// the host path embeds it, and cached under HostImageName, the host
	// path's name.
	DeviceImage   []DeviceImageEncoder
	HostImageName string
	// Devices, when set, is the pool of the devices Image and Captioner
	// run on, in the same order (and Decode.Sets, one decoder set per
	// device): each inference or caption run holds its device's memory
	// budget for FrameMemory bytes per frame while it runs, so a device is
	// never given more than it can hold, and the runs are sized to the
	// smallest budget. The pool counts each device's work by role
	// (gpu.Usage.Done: "decode", "image_text", "captioner"). Nil places no
	// budget.
	Devices *gpu.Pool
	// FrameMemory is the device memory one frame of an inference run
	// claims (its input tensor and the model's activations for it); 0
	// counts 16 times the input tensor's bytes.
	FrameMemory uint64
	// Prep turns frames into the image tower's input.
	Prep *imageprep.Processor
	// Captioner holds one captioner per device, needed when a Set asks for
	// captions; CaptionerName identifies its weights.
	Captioner     []Captioner
	CaptionerName string
	// Size is the size frames are decoded at (the image tower's resize then
	// starts from it).
	Size decode.Size
	// Decode sizes the decoders; Decode.Options.Timeout is the per-video
	// deadline.
	Decode decode.Pool
	// FrameBytes bounds the bytes of decoded frames the stages after the
	// decoders hold at once (the copies on their way to the models, freed
	// when a video's last branch is done): the decoders wait while it is
	// spent. A video larger than the bound goes through alone. 0 means
	// DefaultFrameBytes; negative, no bound. Frames decoded at display size
	// (run's --frame-resize processor) are what it is for: a 1080p frame
	// holds 6 MB, and a video's plan up to a few hundred frames.
	FrameBytes int64
	// PrepWorkers is the number of preprocessing goroutines (default 2).
	PrepWorkers int
	// MaxBatch is the most frames per image tower run (default 32); the
	// encoders must not split a run of that size themselves
	// (models.ImageText.MaxBatch at least as large).
	MaxBatch int
	// VLMSets are the frame sets vlm_reader reads of each item's clip. Their
	// frames are taken in the same decode pass as the image tower's (one
	// open and one decode per video), and each video's items are scored as
	// soon as it is decoded. VLM is the reader (needed with VLMSets) and
	// VLMName identifies its weights for the cache key. Seed is the run's
	// seed, from which each item's seed is drawn (the seeded tenth, the
	// shuffle).
	VLMSets []VLMSet
	VLM     VLMScorer
	VLMName string
	Seed    uint64
	// Permute gives the k-th permutation of an item's options for the VLM
	// sets that ask for permutations (attack.OptionPermutation with the
	// run's seed); its draws must depend on the item and k alone.
	Permute func(it *harness.Item, k int) []int
	// Progress, if set, is told of the work: ("planned", n) once, when the
	// plan holds n videos, then ("videos", n) when n videos
	// are finished (cached, computed or failed), ("frames", n) when n frames
	// are decoded, ("embedded", n) and ("captioned", n) as the models finish
	// frames. It is called from several goroutines.
	Progress func(what string, n int)
}

// A Video is the features of one video file.
type Video struct {
	Path string
	Key  string
	Info decode.Info
	// Times are the frames taken, ascending; Embeddings has one unit row
	// per time, and Captions one caption per time ("" for a frame no set
	// captions; nil when none does).
	Times      []time.Duration
	Embeddings *kernels.Matrix
	Captions   []string
	// Cached is true when the features were read from the cache.
	Cached bool
}

// Item is what one item got.
type Item struct {
	// Failure names why the item's video gave no features: "outside-root",
	// "missing", "clip-outside-video" (this item's clip only), or a
	// decode.Kind ("corrupt", "truncated", "timeout", ...).
	// Err holds the cause.
	Failure string
	Err     error
	// Hash is the SHA-256 of the item's video file, hex ("" when it could
	// not be read): what a stored answer read of the video is named by.
	Hash string
	// Video indexes Result.Videos (-1 on failure or when no Set was asked);
	// Rows maps each Set's name to the rows of that video's Embeddings (and
	// Captions) the item's clip takes, in time order.
	Video int
	Rows  map[string][]int
	// VLM holds vlm_reader's letter log-probabilities under each VLMSet,
	// by set name; a set is absent when the item's prompt did not fit the
	// model even with one frame (nil on failure).
	VLM map[string][]float64
	// Duration is how long the item's video lasts (0 on failure).
	Duration time.Duration
}

// Stats count the work of one Extract call.
type Stats struct {
	// Videos counts the videos whose paths resolved, Failed those of them
	// that gave no features; Unresolved counts the distinct video names
	// whose path did not resolve (missing, outside the root), which are in
	// neither. FailedBy counts both, failed and unresolved, by reason
	// ("missing", "outside-root", "corrupt", ...).
	Videos, Cached, Computed, Failed int
	Unresolved                       int
	FailedBy                         map[string]int
	// Opened is the number of videos handed to the decoders: each is
	// opened and decoded once, for every frame set and VLM set at once.
	Opened         int
	FramesDecoded  int // frames returned by the decoders
	FramesEmbedded int
	// FramesByDevice counts the frames each image tower (each device, in
	// the order of Options.Image) embedded, DecodedByDevice the frames each
	// device's decoders (Decode.Sets) returned, and CaptionsByDevice the
	// captions each captioner wrote.
	FramesByDevice   []int
	DecodedByDevice  []int
	CaptionsByDevice []int
	Captions         int
	// FramesOnDevice counts the frames the GPU frame path (DeviceImage)
	// decoded and embedded on a device; DeviceRefused counts the videos
	// it refused, embedded from host frames instead, and DeviceRefusal
	// is the first refusal's reason.
	FramesOnDevice int
	DeviceRefused  int
	DeviceRefusal  string
	// EmptyCaptions counts the captioned frames, written now or read from
	// the cache, whose caption is empty or blank.
	EmptyCaptions int
	// Busy is the time each stage spent working, summed over its
	// goroutines ("decode" counts the decoders' wall time as seen from the
	// pool), and Wall the time of the whole call.
	Busy map[string]time.Duration
	Wall time.Duration
	// Damaged describes each cache file whose bytes disagreed with its
	// checksum (one flipped bit would otherwise change the answers): its
	// entry was computed again and overwritten. In the order of the videos.
	Damaged []string
}

// Result is the output of Extract.
type Result struct {
	Videos []*Video
	Items  []Item
	Stats  Stats
}

// DefaultFrameBytes is Options.FrameBytes's default: 1 GiB of decoded
// frames past the decoders.
const DefaultFrameBytes = 1 << 30

// FailureOutsideRoot and FailureMissing are the reasons that come before
// decoding; FailureNonFinite is a model that gave a NaN or an infinity for
// one of the video's frames; FailureClipOutside is one item's clip; the
// others are decode.Kind values.
const (
	FailureOutsideRoot = "outside-root"
	FailureMissing     = "missing"
	FailureNonFinite   = "non-finite-embedding"
	// FailureClipOutside is an item whose clip does not overlap its
	// video (it starts at or after the video's end): that item fails, the
	// video's other items keep their features.
	FailureClipOutside = "clip-outside-video"
)

// Extract computes (or reads from the cache) the features of every item's
// video: the image tower's embeddings (and captions) of opt.Sets and
// vlm_reader's scores of opt.VLMSets, from one decode pass per video. It
// returns an error only when the run itself cannot go on (a cancelled ctx,
// a model or cache failure); a bad video is recorded in its items' Failure.
func Extract(ctx context.Context, items []*harness.Item, opt Options) (*Result, error) {
	start := time.Now()
	if len(opt.Sets) > 0 && len(opt.Image) == 0 {
		return nil, errors.New("features: no image encoder")
	}
	if len(opt.Sets) > 0 && opt.Prep == nil {
		return nil, errors.New("features: no image preprocessor")
	}
	if len(opt.VLMSets) > 0 && opt.VLM == nil {
		return nil, errors.New("features: no vlm_reader")
	}
	if len(opt.DeviceImage) > 0 && (len(opt.DeviceImage) != len(opt.Image) || opt.HostImageName == "" || opt.HostImageName == opt.ImageName) {
		return nil, fmt.Errorf("features: %d GPU frame path encoders for %d image towers, host path named %q beside %q: want one per tower and a name of each path", len(opt.DeviceImage), len(opt.Image), opt.HostImageName, opt.ImageName)
	}
	res := &Result{Items: make([]Item, len(items))}
	st := &res.Stats
	st.Busy = map[string]time.Duration{}
	progress := func(what string, n int) {
		if opt.Progress != nil && n > 0 {
			opt.Progress(what, n)
		}
	}

	// Plan: resolve and group by file, in order of first use.
	st.FailedBy = map[string]int{}
	unresolved := map[string]bool{}
	var vids []*planned
	byPath := map[string]*planned{}
	reqs := map[*planned][]request{}
	for i, it := range items {
		res.Items[i].Video = -1
		path, err := harness.ResolveVideo(opt.Root, it)
		if err != nil {
			res.Items[i].Failure, res.Items[i].Err = pathFailure(err), err
			if ref := it.VideoPath + "\x00" + it.Video; !unresolved[ref] {
				unresolved[ref] = true
				st.Unresolved++
				st.FailedBy[res.Items[i].Failure]++
			}
			continue
		}
		p, ok := byPath[path]
		if !ok {
			p = &planned{video: &Video{Path: path}}
			byPath[path] = p
			vids = append(vids, p)
		}
		p.items = append(p.items, i)
		for _, s := range opt.Sets {
			reqs[p] = append(reqs[p], request{clip: clipOf(it), set: s})
		}
		for _, s := range opt.VLMSets {
			p.vplan = append(p.vplan, seededRequest{clip: clipOf(it), sampler: s.Sampler, seed: itemSeed(opt.Seed, it)})
		}
	}
	for _, p := range vids {
		if len(opt.Sets) > 0 {
			p.plan = newPlan(reqs[p])
		}
	}
	st.Videos = len(vids)
	progress("planned", len(vids))
	c := cache{dir: opt.CacheDir}
	dim := 0
	if len(opt.Image) > 0 {
		dim = opt.Image[0].Dim()
	}

	// Hash and look up the caches, a few files at a time.
	t0 := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, p := range vids {
		g.Go(func() error {
			h, err := harness.HashVideo(p.video.Path)
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				p.err, p.fail = err, FailureMissing
				return nil
			}
			p.hash = h
			if p.plan != nil {
				p.video.Key = videoKey(h, p.plan, &opt)
				v, err := c.load(p.video.Key, dim)
				if errors.Is(err, checksum.ErrDamaged) {
					p.damaged = append(p.damaged, err.Error())
					v, err = nil, nil
				}
				if err != nil {
					return err
				}
				if v != nil {
					v.Path = p.video.Path
					p.video = v
				}
				p.needFeat = v == nil
			}
			if len(opt.VLMSets) > 0 {
				p.vkey = vlmKey(h, items, p.items, opt.VLMName, opt.Size, opt.VLMSets, opt.Seed)
				e, err := loadVLM(opt.CacheDir, p.vkey, len(p.items))
				if errors.Is(err, checksum.ErrDamaged) {
					p.damaged = append(p.damaged, err.Error())
					e, err = nil, nil
				}
				if err != nil {
					return err
				}
				if e != nil {
					p.vlm, p.duration = e.Items, time.Duration(e.DurationNS)
				}
				p.needVLM = e == nil
			}
			if p.plan != nil && !p.needFeat {
				p.duration = p.video.Info.Duration
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	st.Busy["hash"] = time.Since(t0)
	for _, p := range vids {
		st.Damaged = append(st.Damaged, p.damaged...)
	}
	var todo []*planned
	for _, p := range vids {
		switch {
		case p.fail != "":
			st.Failed++
			progress("videos", 1)
		case !p.needFeat && !p.needVLM:
			st.Cached++
			progress("videos", 1)
		default:
			todo = append(todo, p)
		}
	}

	if len(todo) > 0 {
		if err := pipeline(ctx, todo, items, &opt, c, st, progress); err != nil {
			return nil, err
		}
		for _, p := range todo {
			if p.fail != "" {
				st.Failed++
			} else {
				st.Computed++
			}
		}
	}

	// Map every item's frame sets onto its video's rows.
	for _, p := range vids {
		for _, i := range p.items {
			res.Items[i].Hash = p.hash
		}
		if p.fail != "" {
			st.FailedBy[p.fail]++
			for _, i := range p.items {
				res.Items[i].Failure, res.Items[i].Err = p.fail, p.err
			}
			continue
		}
		for k, i := range p.items {
			res.Items[i].Duration = p.duration
			if p.vlm != nil {
				res.Items[i].VLM = p.vlm[k]
				if err := unansweredErr(items[i], p.vlm[k]); err != nil {
					res.Items[i].Failure, res.Items[i].Err = letters.FailureServer, err
				}
			}
		}
		if p.plan == nil {
			continue
		}
		vi := len(res.Videos)
		res.Videos = append(res.Videos, p.video)
		empty, err := emptyCaptions(p.video, p.plan)
		if err != nil {
			return nil, fmt.Errorf("features: %s: %w", p.video.Path, err)
		}
		st.EmptyCaptions += empty
		row := make(map[time.Duration]int, len(p.video.Times))
		for r, t := range p.video.Times {
			row[t] = r
		}
	items:
		for _, i := range p.items {
			rows := map[string][]int{}
			for _, s := range opt.Sets {
				ts, err := s.Sampler.Times(p.video.Info, clipOf(items[i]), 0)
				if errors.Is(err, decode.ErrClipOutside) {
					// This item alone: the video's other items keep their rows.
					res.Items[i] = Item{Video: -1, Failure: FailureClipOutside, Err: fmt.Errorf("%s: %w", items[i].Source, err)}
					continue items
				}
				if err != nil {
					return nil, fmt.Errorf("features: %s: frame set %s: %w", items[i].Source, s.Name, err)
				}
				for _, t := range ts {
					r, ok := row[t]
					if !ok {
						return nil, fmt.Errorf("features: %s: frame at %v of set %s is not in the plan of %s", items[i].Source, t, s.Name, p.video.Path)
					}
					rows[s.Name] = append(rows[s.Name], r)
				}
			}
			res.Items[i].Video, res.Items[i].Rows = vi, rows
		}
	}
	st.Wall = time.Since(start)
	return res, nil
}

// planned is one video of an Extract call: what its items ask of it, what
// the caches hold, and what it got.
type planned struct {
	video *Video
	plan  *planSampler // the image tower's frame sets; nil without Sets
	vplan seededPlan   // the VLM sets of every item, in item order
	items []int
	// needFeat and needVLM say what the caches lacked; vkey is the VLM
	// cache key.
	needFeat, needVLM bool
	vkey              string
	// vlm holds the scores of each of items (in that order); duration is
	// how long the video lasts.
	vlm      []map[string][]float64
	duration time.Duration
	err      error
	fail     string
	// hash is the SHA-256 of the video's bytes ("" when unreadable);
	// damaged lists its cache files whose checksums disagreed.
	hash    string
	damaged []string
}

// pathFailure names why ResolveVideo refused a path.
func pathFailure(err error) string {
	if errors.Is(err, harness.ErrOutsideRoot) {
		return FailureOutsideRoot
	}
	return FailureMissing
}
