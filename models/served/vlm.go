package served

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
)

// VLM is a served vlm_reader or screen_reader: a features.VLMScorer whose
// letters' log-probabilities a server's vision-language model gives.
//
// Frames encodes each frame once (openai.EncodeFrame: 448 on the long side,
// JPEG at 85) and hands back a batch of handles, not pixels: each image of
// the batch is two values, the handle of its encoded frame split in 24-bit
// halves (exact in float32), which Score looks up. The batch is the one the
// ONNX readers' interface carries from Frames to Score; pixels would be
// 1.3 MB a frame for bytes the server never sees.
type VLM struct {
	client *lazyClient
	stats  *Stats
	frames *frameTable
	// conc is the requests in flight in all (server_concurrency times
	// replicas), replicas the role's servers.
	conc, replicas int
	wording        *letters.Wording
}

// NewVLM opens a served VLM reader.
func NewVLM(cfg Config) (*VLM, error) {
	c, err := newLazyClient(cfg)
	if err != nil {
		return nil, err
	}
	return &VLM{client: c, stats: newStats(cfg, c), frames: newFrameTable(), conc: cfg.concurrency(), replicas: len(cfg.Endpoints()), wording: cfg.Wording}, nil
}

// videoPrompts is about how many prompts one video's call carries (a few
// items, each under three to six frame sets), by which VideosInFlight
// divides the requests allowed in flight.
const videoPrompts = 16

// maxVideosInFlight bounds the videos scored at once, whose decoded frames
// (up to 128 a video for the reference probe) wait in memory meanwhile:
// per replica, for up to maxReplicaShare replicas, since a video's
// requests go to one replica (its prefix cache), so that fewer videos
// than replicas would leave replicas idle.
const (
	maxVideosInFlight = 8
	maxReplicaShare   = 4
)

// VideosInFlight is how many videos' calls the feature stage makes at once
// (features.VLMGroups): enough that server_concurrency requests can be in
// flight when each video's call carries about videoPrompts prompts, one at
// the default concurrency of 8, four at 64, at most maxVideosInFlight, or
// with R replicas (conc is then server_concurrency times R) at most
// maxVideosInFlight times min(R, maxReplicaShare), 32 at 8 replicas, and
// at least one video a replica (as many as 32 allows). The
// client holds the requests in flight to server_concurrency a replica
// whatever the number of calls.
func (v *VLM) VideosInFlight() int {
	r := max(1, v.replicas)
	return min(max(r, (v.conc+videoPrompts-1)/videoPrompts), maxVideosInFlight*min(r, maxReplicaShare))
}

// Stats returns the reader's counts.
func (v *VLM) Stats() *Stats { return v.stats }

// Frames encodes the frames for the server, each once however many prompts
// show it, and returns their handles.
func (v *VLM) Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	b := models.ImageBatch{N: len(frames), C: 1, H: 1, W: 2, Data: make([]float32, 2*len(frames))}
	if len(frames) == 0 {
		return models.ImageBatch{}, nil
	}
	for i, f := range frames {
		if err := ctx.Err(); err != nil {
			return models.ImageBatch{}, err
		}
		h, err := v.frames.put(f)
		if err != nil {
			return models.ImageBatch{}, err
		}
		b.Data[2*i], b.Data[2*i+1] = float32(h>>24), float32(h&(1<<24-1))
	}
	return b, nil
}

// Fits accepts every prompt with its parts (letters.New): the server's
// tokenizer is not here, so a prompt too long for its context is found by
// the server's refusal, and Score asks it again with fewer frames.
func (v *VLM) Fits(p models.VLMPrompt) error {
	_, err := partsOf(p.Parts, p.Options)
	return err
}

// Score returns log p(option) per prompt, in the order given; a prompt the
// server failed has no row (nil). The prompts of one call are one video's
// (the feature stage scores video by video): they go to the server as one
// group, frames first, so its prefix cache serves the video's frames once.
//
// A prompt the server refuses as too long for its model (vLLM's "maximum
// context length", SGLang's "longer than the model's context length", an
// image limit: openai.ErrTooLong) is asked again with every second frame,
// their order kept, until it fits, as the ONNX readers fit a prompt
// (features' fitPrompt); one refused with a single frame fails. The
// refusals are stored like any, so a resumed run fits it the same way
// without asking again.
func (v *VLM) Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error) {
	type prompt struct {
		parts  letters.Parts
		frames []*openai.Image
	}
	ps := make([]prompt, len(prompts))
	for i, p := range prompts {
		parts, err := partsOf(p.Parts, p.Options)
		if err != nil {
			return nil, err
		}
		frames, err := v.frames.get(p.Images)
		if err != nil {
			return nil, err
		}
		ps[i] = prompt{parts, frames}
	}
	rows := make([][]float64, len(prompts))
	pending := make([]int, len(prompts))
	for i := range pending {
		pending[i] = i
	}
	for len(pending) > 0 {
		qs := make([]openai.Query, len(pending))
		refit := make([]bool, len(pending))
		for k, i := range pending {
			p := ps[i]
			qs[k] = openai.Query{ID: fmt.Sprintf("%s prompt %d", v.stats.role(), i), Frames: p.frames, Prompt: p.parts, Wording: v.wording}
			refit[k] = len(p.frames) > 1
		}
		got, long, err := ask(ctx, v.client, v.stats, v.stats.role(), qs, refit)
		if err != nil {
			return nil, err
		}
		var next []int
		for k, i := range pending {
			if long[k] {
				ps[i].frames = everySecond(ps[i].frames)
				next = append(next, i)
				continue
			}
			rows[i] = got[k]
		}
		v.stats.addRefitted(len(next))
		pending = next
	}
	return rows, nil
}

// everySecond keeps frames 0, 2, 4, ... in their order: the rule by which
// the feature stage fits a prompt to an ONNX reader.
func everySecond(frames []*openai.Image) []*openai.Image {
	kept := make([]*openai.Image, 0, (len(frames)+1)/2)
	for j := 0; j < len(frames); j += 2 {
		kept = append(kept, frames[j])
	}
	return kept
}

// frameTable holds the encoded frames of the videos being scored, under
// handles: a frame's content gives it one handle (so one encoding), and
// the oldest are dropped past tableSize. Handles count up from 1 and never
// leave the process.
type frameTable struct {
	mu       sync.Mutex
	byHandle map[uint64]*openai.Image
	bySum    map[[32]byte]uint64
	order    [][32]byte
	next     uint64
}

// tableSize bounds the frames held: a few dozen videos' 128 frames, more
// than the feature stage has between Frames and Score at any worker count.
const tableSize = 8192

func newFrameTable() *frameTable {
	return &frameTable{byHandle: map[uint64]*openai.Image{}, bySum: map[[32]byte]uint64{}, next: 1}
}

// put encodes f (once per content) and returns its handle.
func (t *frameTable) put(f imageprep.Frame) (uint64, error) {
	stride := f.Stride
	if stride == 0 {
		stride = 3 * f.Width
	}
	h := sha256.New()
	fmt.Fprintf(h, "%dx%d/%d;", f.Width, f.Height, stride)
	h.Write(f.Pix)
	var sum [32]byte
	h.Sum(sum[:0])
	t.mu.Lock()
	if k, ok := t.bySum[sum]; ok {
		t.mu.Unlock()
		return k, nil
	}
	t.mu.Unlock()
	im, err := openai.EncodeFrame(f.Pix, f.Width, f.Height, f.Stride)
	if err != nil {
		return 0, fmt.Errorf("served: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if k, ok := t.bySum[sum]; ok {
		return k, nil
	}
	k := t.next
	t.next++
	t.byHandle[k], t.bySum[sum] = im, k
	t.order = append(t.order, sum)
	if len(t.order) > tableSize {
		old := t.order[0]
		t.order = t.order[1:]
		delete(t.byHandle, t.bySum[old])
		delete(t.bySum, old)
	}
	return k, nil
}

// get returns the encoded frames of a batch Frames made.
func (t *frameTable) get(b models.ImageBatch) ([]*openai.Image, error) {
	if b.N == 0 {
		return nil, nil
	}
	if b.C != 1 || b.H != 1 || b.W != 2 || len(b.Data) != 2*b.N {
		return nil, fmt.Errorf("%w: an image batch of %dx%dx%dx%d is not one a served VLM's Frames made", errPrompt, b.N, b.C, b.H, b.W)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*openai.Image, b.N)
	for i := range out {
		k := uint64(b.Data[2*i])<<24 | uint64(b.Data[2*i+1])
		im, ok := t.byHandle[k]
		if !ok {
			return nil, fmt.Errorf("served: frame handle %d is no longer held (more than %d frames between Frames and Score)", k, tableSize)
		}
		out[i] = im
	}
	return out, nil
}

// DecodeShort is the short side a served VLM's frames are decoded at:
// the long side they are sent at, so that a frame of any shape is shrunk
// to it, never enlarged.
const DecodeShort = openai.FrameLongSide
