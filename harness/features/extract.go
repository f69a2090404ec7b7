package features

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
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
					res.Items[i].Failure, res.Items[i].Err = models.FailureServer, err
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

// decodePlan is what one video's decoder takes: the union of the frame
// times of what the caches lacked, the image tower's and the VLM's, so that
// the video is opened and decoded once.
type decodePlan struct {
	feat decode.Sampler // nil when the features are cached; with the GPU frame path, a captionPlan
	vlm  seededPlan     // nil when the VLM scores are cached
}

func (d decodePlan) Times(in decode.Info, clip decode.Clip, seed uint64) ([]time.Duration, error) {
	var all []time.Duration
	if d.feat != nil {
		ts, err := d.feat.Times(in, clip, seed)
		if err != nil {
			return nil, err
		}
		all = ts
	}
	if d.vlm != nil {
		ts, err := d.vlm.Times(in, clip, seed)
		if err != nil {
			return nil, err
		}
		all = append(all, ts...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

func (d decodePlan) String() string {
	var parts []string
	if d.feat != nil {
		parts = append(parts, d.feat.String())
	}
	if d.vlm != nil {
		parts = append(parts, d.vlm.String())
	}
	return strings.Join(parts, "+")
}

// pathFailure names why ResolveVideo refused a path.
func pathFailure(err error) string {
	if errors.Is(err, harness.ErrOutsideRoot) {
		return FailureOutsideRoot
	}
	return FailureMissing
}

// decodeFailure names why a video could not be decoded.
func decodeFailure(err error) string {
	if k := decode.KindOf(err); k != "" {
		return string(k)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return FailureMissing
	}
	return string(decode.KindCorrupt)
}

// work is one video moving through the stages.
type work struct {
	k      int // index into the videos given to pipeline
	video  *Video
	plan   *planSampler
	frames []imageprep.Frame // copies of the decoded frames
	pixels []float32         // preprocessed, one FrameLen per frame
}

// vlmWork is one decoded video on its way to vlm_reader: every frame the
// decoder took, by time.
type vlmWork struct {
	k      int
	info   decode.Info
	row    map[time.Duration]int
	frames []imageprep.Frame
}

// busy adds up the working time of a stage's goroutines.
type busy struct {
	mu sync.Mutex
	m  map[string]time.Duration
}

func (b *busy) add(stage string, since time.Time) {
	b.mu.Lock()
	b.m[stage] += time.Since(since)
	b.mu.Unlock()
}

// pipeline decodes each video of vids once, at the union of the frame times
// of what the caches lacked, then preprocesses, embeds, captions and stores
// its frame sets' frames and, on a branch of its own, scores its items'
// VLM sets with vlm_reader, filling each video's fields (its features, its
// scores, or its failure). Each stage hands the next a bounded queue, so a
// slow stage holds back the ones before it instead of letting work pile up.
func pipeline(ctx context.Context, vids []*planned, items []*harness.Item, opt *Options, c cache, st *Stats, progress func(string, int)) error {
	g, ctx := errgroup.WithContext(ctx)
	workers := opt.PrepWorkers
	if workers <= 0 {
		workers = 2
	}
	maxBatch := opt.MaxBatch
	if maxBatch <= 0 {
		maxBatch = 32
	}
	bz := &busy{m: st.Busy}
	var counts sync.Mutex
	prepQ := make(chan *work, workers)
	// One inference queue per device: video k goes to device k mod D, so
	// the placement, and the frames each device embeds, depend on the plan
	// alone, and with videos of like length every device stays busy.
	inferQs := make([]chan *work, max(1, len(opt.Image)))
	for d := range inferQs {
		inferQs[d] = make(chan *work, 2)
	}
	st.FramesByDevice = make([]int, len(opt.Image))
	st.DecodedByDevice = make([]int, max(1, opt.Decode.Sets))
	st.CaptionsByDevice = make([]int, len(opt.Captioner))
	storeQ := make(chan *work, 2)
	// A served vlm_reader scores several videos at once (VLMGroups); an
	// ONNX one, one.
	vlmWorkers := 1
	if g, ok := opt.VLM.(VLMGroups); ok {
		vlmWorkers = max(1, g.VideosInFlight())
	}
	vlmQ := make(chan *vlmWork, max(2, vlmWorkers))
	send := func(q chan<- *work, w *work) error {
		select {
		case q <- w:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// A video is finished when each branch it needed is; pending counts
	// the branches left.
	var mu sync.Mutex
	pending := make([]int, len(vids))
	for k, p := range vids {
		pending[k] = b2i(p.needFeat) + b2i(p.needVLM)
	}
	finish := func(k int) {
		mu.Lock()
		pending[k]--
		last := pending[k] == 0
		mu.Unlock()
		if last {
			progress("videos", 1)
		}
	}
	// failed records a video's failure; its other branch, if any, still
	// finishes but the failure stays.
	failed := func(k int, fail string, err error) {
		mu.Lock()
		if vids[k].fail == "" {
			vids[k].err, vids[k].fail = err, fail
		}
		mu.Unlock()
		finish(k)
	}

	// decode: decode.Pool hands results over in job order; the frames are
	// copied out, since the pool reuses their buffers.
	g.Go(func() error {
		defer close(prepQ)
		defer close(vlmQ)
		pool := opt.Decode
		djobs := make([]decode.Job, len(vids))
		for k, p := range vids {
			dp := decodePlan{}
			switch {
			case p.needFeat && len(opt.DeviceImage) > 0 && p.plan.captions():
				dp.feat = captionPlan{p.plan}
			case p.needFeat && len(opt.DeviceImage) == 0:
				dp.feat = p.plan
			}
			if p.needVLM {
				dp.vlm = p.vplan
			}
			djobs[k] = decode.Job{Path: p.video.Path, Sampler: dp, Size: opt.Size}
		}
		counts.Lock()
		st.Opened += len(djobs)
		counts.Unlock()
		t0 := time.Now()
		err := pool.Run(ctx, djobs, func(r *decode.Result) error {
			bz.add("decode", t0)
			defer func() { t0 = time.Now() }()
			p := vids[r.Index]
			if r.Err != nil {
				fail := decodeFailure(r.Err)
				if p.needFeat {
					failed(r.Index, fail, r.Err)
				}
				if p.needVLM {
					failed(r.Index, fail, r.Err)
				}
				return nil
			}
			mu.Lock()
			p.duration = r.Info.Duration
			mu.Unlock()
			row := make(map[time.Duration]int, len(r.Times))
			frames := make([]imageprep.Frame, len(r.Frames))
			for j, f := range r.Frames {
				row[r.Times[j]] = j
				frames[j] = imageprep.Frame{Pix: slices.Clone(f.RGB), Width: f.Width, Height: f.Height, Stride: 3 * f.Width}
			}
			counts.Lock()
			st.FramesDecoded += len(frames)
			if r.Set < len(st.DecodedByDevice) {
				st.DecodedByDevice[r.Set] += len(frames)
			}
			counts.Unlock()
			if opt.Devices != nil && r.Set < len(opt.Devices.Devices()) {
				opt.Devices.Count(r.Set, "decode", len(frames))
			}
			progress("frames", len(frames))
			if p.needVLM {
				select {
				case vlmQ <- &vlmWork{k: r.Index, info: r.Info, row: row, frames: frames}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if !p.needFeat {
				return nil
			}
			// The image tower's rows are the frames of its own plan only.
			ts, err := p.plan.Times(r.Info, decode.Clip{}, 0)
			if err != nil {
				failed(r.Index, string(decode.KindCorrupt), err)
				return nil
			}
			w := &work{k: r.Index, plan: p.plan, video: &Video{Path: p.video.Path, Key: p.video.Key, Info: r.Info, Times: ts}}
			// With the GPU frame path only the captioned frames were
			// decoded here: the others are left empty.
			w.frames = make([]imageprep.Frame, len(ts))
			for r, t := range ts {
				j, ok := row[t]
				if !ok && len(opt.DeviceImage) == 0 {
					return fmt.Errorf("features: frame at %v of the plan of %s was not decoded", t, p.video.Path)
				}
				if ok {
					w.frames[r] = frames[j]
				}
			}
			return send(prepQ, w)
		})
		return err
	})

	// vlm: each decoded video's items, every VLM set, to vlm_reader; the
	// scores are stored as soon as the video's items are scored.
	for range vlmWorkers {
		if len(opt.VLMSets) == 0 {
			break
		}
		g.Go(func() error {
			for w := range vlmQ {
				t0 := time.Now()
				p := vids[w.k]
				got, err := scoreVLM(ctx, items, p.items, opt, w.info, w.row, w.frames)
				if err != nil {
					return err
				}
				// A video some of whose prompts the server failed on is not
				// stored: its items fail (server) this run and are asked
				// again by the next.
				if !unanswered(got) {
					if err := storeVLM(opt.CacheDir, p.vkey, p.video.Path, got, w.info.Duration); err != nil {
						return err
					}
				}
				mu.Lock()
				p.vlm = got
				mu.Unlock()
				bz.add("vlm", t0)
				progress("vlm", len(p.items))
				finish(w.k)
			}
			return nil
		})
	}

	// prep: frames to pixel tensors.
	var prepWG sync.WaitGroup
	for range workers {
		prepWG.Add(1)
		g.Go(func() error {
			defer prepWG.Done()
			for w := range prepQ {
				if len(opt.DeviceImage) > 0 { // the GPU preprocesses
					if err := send(inferQs[w.k%len(inferQs)], w); err != nil {
						return err
					}
					continue
				}
				t0 := time.Now()
				w.pixels = make([]float32, len(w.frames)*opt.Prep.FrameLen())
				if err := opt.Prep.Batch(ctx, w.frames, w.pixels); err != nil {
					return fmt.Errorf("features: preprocess %s: %w", w.video.Path, err)
				}
				bz.add("prep", t0)
				if err := send(inferQs[w.k%len(inferQs)], w); err != nil {
					return err
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		prepWG.Wait()
		for _, q := range inferQs {
			close(q)
		}
		return nil
	})

	// infer: one goroutine per device, on its own queue; it gathers the
	// frames of as many waiting videos as fit in maxBatch (at least one
	// whole video), runs them through the model in runs of at most what the
	// smallest device budget holds, and holds its device's budget for the
	// largest run meanwhile (opt.Devices).
	var h, wd, frameLen int
	if opt.Prep != nil {
		h, wd = opt.Prep.OutputSize()
		frameLen = opt.Prep.FrameLen()
	}
	// A run takes at most as many frames as the smallest device budget
	// holds; the frames of one gathering go through in runs of that size,
	// one after the other, so the lease holds the budget of the largest.
	runFrames := maxBatch
	if opt.Devices != nil && frameLen > 0 {
		if b := opt.Devices.SmallestBudget(); b > 0 {
			runFrames = max(1, min(maxBatch, int(b/opt.frameMemory(frameLen))))
		}
	}
	var inferWG sync.WaitGroup
	for d, enc := range opt.Image {
		inferQ := inferQs[d]
		inferWG.Add(1)
		g.Go(func() error {
			defer inferWG.Done()
			if len(opt.DeviceImage) > 0 {
				return inferOnDevice(ctx, opt, d, inferQ, deviceStage{
					lease: func(n int) (*gpu.Lease, error) {
						if opt.Devices == nil {
							return nil, nil
						}
						need := gpu.Need{Memory: uint64(min(n, runFrames)) * opt.frameMemory(frameLen), Pinned: true, Slot: d, Work: "image_text", Units: n}
						lease, err := opt.Devices.Acquire(ctx, need)
						if err != nil {
							return nil, fmt.Errorf("features: image tower on %s: %d frames: %w", opt.Devices.Devices()[d].ID(), n, err)
						}
						return lease, nil
					},
					count: func(w *work, refused error) {
						n := len(w.video.Times)
						counts.Lock()
						st.FramesByDevice[d] += n
						st.FramesEmbedded += n
						if refused == nil {
							st.FramesOnDevice += n
							st.FramesDecoded += n
							if d < len(st.DecodedByDevice) {
								st.DecodedByDevice[d] += n
							}
						} else {
							st.DeviceRefused++
							if st.DeviceRefusal == "" {
								st.DeviceRefusal = refused.Error()
							}
						}
						counts.Unlock()
						if refused == nil {
							if opt.Devices != nil {
								opt.Devices.Count(d, "decode", n)
							}
							progress("frames", n)
						}
						progress("embedded", n)
					},
					hostKey: func(w *work) string {
						host := *opt
						host.ImageName = opt.HostImageName
						return videoKey(vids[w.k].hash, w.plan, &host)
					},
					busy:   func(t0 time.Time) { bz.add("infer", t0) },
					failed: failed,
					store:  func(w *work) error { return send(storeQ, w) },
				})
			}
			for w := range inferQ {
				batch := []*work{w}
				n := len(w.frames)
			gather:
				for n < maxBatch {
					select {
					case more, ok := <-inferQ:
						if !ok {
							break gather
						}
						batch = append(batch, more)
						n += len(more.frames)
					default:
						break gather
					}
				}
				runs := runSizes(n, runFrames)
				var lease *gpu.Lease
				if opt.Devices != nil {
					var err error
					lease, err = opt.Devices.Acquire(ctx, gpu.Need{Memory: uint64(slices.Max(runs)) * opt.frameMemory(frameLen), Pinned: true, Slot: d, Work: "image_text", Units: n})
					if err != nil {
						return fmt.Errorf("features: image tower on %s: a run of %d frames: %w", opt.Devices.Devices()[d].ID(), n, err)
					}
					if lease.Slot() != d {
						lease.Release()
						return fmt.Errorf("features: image tower on %s: a run of %d frames does not fit its memory budget", opt.Devices.Devices()[d].ID(), n)
					}
				}
				t0 := time.Now()
				pix := make([]float32, 0, n*frameLen)
				for _, b := range batch {
					pix = append(pix, b.pixels...)
				}
				var embs [][]float32
				lo := 0
				for _, size := range runs {
					e, err := enc.EmbedImages(ctx, padSingle(models.ImageBatch{N: size, C: 3, H: h, W: wd, Data: pix[lo*frameLen : (lo+size)*frameLen]}))
					if err != nil {
						if lease != nil {
							lease.Release()
						}
						return fmt.Errorf("features: image tower (device %d): %w", d, err)
					}
					if len(e) < size {
						return fmt.Errorf("features: image tower returned %d embeddings for %d frames", len(e), size)
					}
					embs = append(embs, e[:size]...)
					lo += size
				}
				if lease != nil {
					lease.Release()
				}
				bz.add("infer", t0)
				counts.Lock()
				st.FramesByDevice[d] += n
				counts.Unlock()
				off := 0
				for _, b := range batch {
					m := kernels.NewMatrix(len(b.frames), enc.Dim())
					for r := range b.frames {
						copy(m.Row(r), embs[off+r])
					}
					off += len(b.frames)
					b.pixels = nil
					counts.Lock()
					st.FramesEmbedded += len(b.frames)
					counts.Unlock()
					progress("embedded", len(b.frames))
					// A model that emits NaN or Inf for a frame would make
					// every similarity of the video NaN and its items'
					// answers silently wrong: the video fails its own items
					// instead, and is not cached.
					var nf *kernels.NonFiniteError
					if err := kernels.CheckFinite(m); errors.As(err, &nf) {
						failed(b.k, FailureNonFinite, fmt.Errorf("image tower gave a non-finite embedding for %s at %v: %w", b.video.Path, b.video.Times[nf.Row], err))
						continue
					} else if err != nil {
						return err
					}
					b.video.Embeddings = m
					if err := send(storeQ, b); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		inferWG.Wait()
		close(storeQ)
		return nil
	})

	// caption and store: captions for the frames a set asks them of, then
	// the cache entry.
	var capWG sync.WaitGroup
	nCap := max(1, len(opt.Captioner))
	for d := range nCap {
		capWG.Add(1)
		g.Go(func() error {
			defer capWG.Done()
			for w := range storeQ {
				if w.plan.captions() {
					if d >= len(opt.Captioner) {
						return errors.New("features: a frame set asks for captions and no captioner was given")
					}
					t0 := time.Now()
					want, err := w.plan.captionTimes(w.video.Info, 0)
					if err != nil {
						return err
					}
					var idx []int
					var frames []imageprep.Frame
					for r, t := range w.video.Times {
						if want[t] {
							idx = append(idx, r)
							frames = append(frames, w.frames[r])
						}
					}
					var lease *gpu.Lease
					if opt.Devices != nil {
						lease, err = opt.Devices.Acquire(ctx, gpu.Need{Memory: uint64(len(frames)) * opt.frameMemory(frameLen), Pinned: true, Slot: d, Work: "captioner", Units: len(frames)})
						if err != nil {
							return fmt.Errorf("features: captioner on %s: %d frames: %w", opt.Devices.Devices()[d].ID(), len(frames), err)
						}
					}
					caps, err := opt.Captioner[d].CaptionFrames(ctx, frames)
					if lease != nil {
						lease.Release()
					}
					if err != nil {
						return fmt.Errorf("features: captioner (device %d): %w", d, err)
					}
					if n := failedCaptions(caps); n > 0 {
						// A served captioner's server failed on some frames:
						// the video's items fail (server), nothing of it is
						// cached, and the next run captions it again.
						failed(w.k, models.FailureServer, fmt.Errorf("%s: the captioner's server failed on %d of its %d frames after its retries", w.video.Path, n, len(caps)))
						w.frames = nil
						continue
					}
					w.video.Captions = make([]string, len(w.video.Times))
					for j, r := range idx {
						w.video.Captions[r] = caps[j].Text
					}
					bz.add("caption", t0)
					counts.Lock()
					st.Captions += len(idx)
					st.CaptionsByDevice[d] += len(idx)
					counts.Unlock()
					progress("captioned", len(idx))
				}
				w.frames = nil
				t0 := time.Now()
				if err := c.store(w.video, w.plan.String()); err != nil {
					return err
				}
				bz.add("store", t0)
				mu.Lock()
				vids[w.k].video = w.video
				mu.Unlock()
				finish(w.k)
			}
			return nil
		})
	}
	return g.Wait()
}

// frameMemory is the device memory one frame of an inference run claims.
func (o *Options) frameMemory(frameLen int) uint64 {
	if o.FrameMemory > 0 {
		return o.FrameMemory
	}
	return 16 * 4 * uint64(frameLen)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// padSingle turns a batch of one image into two copies of it. ONNX Runtime
// computes a run of one image through its matrix-vector kernels, whose sums
// round differently from the matrix-matrix ones every larger run uses (the
// last bit of some values; TestImageTowerRowsDoNotDependOnTheirBatch), so
// without this a frame's embedding would depend on whether another video's
// frames happened to share its run. The extra row is dropped by the caller.
func padSingle(b models.ImageBatch) models.ImageBatch {
	if b.N != 1 {
		return b
	}
	b.Data = append(b.Data[:len(b.Data):len(b.Data)], b.Data...)
	b.N = 2
	return b
}

// runSizes splits n frames into runs of at most maxBatch, none of one frame
// unless n is 1 (see padSingle): 33 frames at 32 are runs of 31 and 2.
func runSizes(n, maxBatch int) []int {
	maxBatch = max(maxBatch, 3) // with 2, three frames would leave one
	var out []int
	for n > 0 {
		k := min(n, maxBatch)
		if n-k == 1 {
			k--
		}
		out = append(out, k)
		n -= k
	}
	return out
}

// failedCaptions counts the captions a served captioner's server failed on.
func failedCaptions(caps []models.Caption) int {
	n := 0
	for _, c := range caps {
		if c.Failed {
			n++
		}
	}
	return n
}
