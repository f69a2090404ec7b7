package features

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"crypto/sha256"
	"encoding/hex"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
)

// A VLMSet is one frame set the VLM readers show vlm_reader: a sampler,
// drawn per item from the item's seed where it is seeded, and whether the
// frames are shown in a seeded shuffle instead of in time order.
type VLMSet struct {
	Name    string
	Sampler decode.Sampler
	Shuffle bool
	// Permutations, when positive, also scores the item's prompt with its
	// options in each permutation k = 1..Permutations that Options.Permute
	// gives, under the name PermutedName(Name, k), in that permuted order
	// (the option-permutation audit of the VLM readers).
	Permutations int
}

// PermutedName is the name the scores of set name's prompts with the
// options in permutation k are kept under (attack.PermutedSet).
func PermutedName(name string, k int) string {
	if k == 0 {
		return name
	}
	return fmt.Sprintf("%s#p%d", name, k)
}

// VLMSets returns the frame sets of the three VLM readers (Video-Index 3.5
// and 3.6) with n frames where they take several: the centre frame, n
// uniform frames in a seeded shuffle, and n uniform frames of one seeded
// contiguous tenth of the clip. Their names are the attack.VLM* keys.
func VLMSets(n int) (centre, shuffled, tenth VLMSet) {
	centre = VLMSet{Name: "vlm-centre", Sampler: mustSampler("centre")}
	shuffled = VLMSet{Name: "vlm-shuffled", Sampler: mustSampler(fmt.Sprintf("uniform:%d", n)), Shuffle: true}
	tenth = VLMSet{Name: "vlm-tenth", Sampler: mustSampler(fmt.Sprintf("window:%d,frac:0.1", n))}
	return centre, shuffled, tenth
}

// DiagnosticSets returns the frame sets of the temporal diagnostics
// (Video-Index's half1, half2, off1, off2; 001, Table 17) with n frames,
// and the base they are compared with: n uniform frames of the clip in
// time order. half:H takes n uniform frames inside half H of the clip;
// offset:K takes one frame K/3 of the way into each of n equal segments
// (decode.ParseSampler).
func DiagnosticSets(n int) (base VLMSet, conds []VLMSet) {
	base = VLMSet{Name: fmt.Sprintf("vlm-uniform-%d", n), Sampler: mustSampler(fmt.Sprintf("uniform:%d", n))}
	for _, c := range []struct{ name, spec string }{
		{"half1", "half:1,n:%d"}, {"half2", "half:2,n:%d"}, {"off1", "offset:1,n:%d"}, {"off2", "offset:2,n:%d"},
	} {
		conds = append(conds, VLMSet{Name: "vlm-" + c.name, Sampler: mustSampler(fmt.Sprintf(c.spec, n))})
	}
	return base, conds
}

func (s VLMSet) String() string {
	out := s.Name + "=" + s.Sampler.String()
	if s.Shuffle {
		out += "+shuffle"
	}
	if s.Permutations > 0 {
		out += fmt.Sprintf("+permutations:%d", s.Permutations)
	}
	return out
}

// A VLMScorer is the vlm_reader role on one device (models.VLMReader):
// frames to its images, a check that a prompt fits, and log p(letter) for
// each option's letter after one prefill.
type VLMScorer interface {
	Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error)
	Fits(p models.VLMPrompt) error
	Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error)
}

// VLMOptions configure ReadVLM.
type VLMOptions struct {
	// Root is the video root (harness.ResolveVideo); CacheDir holds the
	// scores computed so far.
	Root, CacheDir string
	Sets           []VLMSet
	// Reader is vlm_reader; ReaderName identifies its weights for the
	// cache key.
	Reader     VLMScorer
	ReaderName string
	// Size is the size frames are decoded at; Decode sizes the decoders.
	Size   decode.Size
	Decode decode.Pool
	// Seed is the run's seed, from which each item's seed is drawn (the
	// seeded tenth, the shuffle).
	Seed uint64
	// Progress, if set, is told ("vlm-videos", n) as videos finish.
	Progress func(what string, n int)
	// Damaged, if set, is told of each cache file whose checksum disagreed
	// (Stats.Damaged); its scores were computed again.
	Damaged func(what string)
}

// vlmCacheFormat changes whenever what a VLM cache entry holds changes
// meaning (the prompt's wording included). Format 2 records the video's
// duration; format 3 asks in the Video-Index authors' wording.
const vlmCacheFormat = 3

// ReadVLM returns, per item, vlm_reader's letter log-probabilities under
// each of opt.Sets, keyed by set name: Extract with VLM sets only, so each
// video is decoded once for all its items' sets and its scores are stored
// in opt.CacheDir under a key of the video's bytes, the model, the
// preprocessing, the decode size, the sets and the items' texts and seeds;
// a second or resumed run decodes nothing already scored. An item whose
// video is bad, or whose prompt does not fit the model even with one
// frame, has no scores for that set (its readers then guess); a prompt a
// served reader's server failed on after its retries has the set with a
// nil row, and its video's scores are not stored, so that the caller fails
// the item with reason letters.FailureServer and a resumed run asks again;
// only a cancelled ctx or a failing model or cache is an error. The audit reads
// the VLM sets it knows of from the start through Extract with the image
// tower's sets, in the same pass; ReadVLM serves what it decides later
// (the 128-frame reference probe).
//
// Every item's prompt is scored on its own (frames and text), so its
// scores do not depend on the other items of the run.
func ReadVLM(ctx context.Context, items []*harness.Item, opt VLMOptions) ([]map[string][]float64, error) {
	if opt.Reader == nil {
		return nil, errors.New("features: no vlm_reader")
	}
	var progress func(string, int)
	if opt.Progress != nil {
		progress = func(what string, n int) {
			if what == "videos" {
				opt.Progress("vlm-videos", n)
			}
		}
	}
	res, err := Extract(ctx, items, Options{Root: opt.Root, CacheDir: opt.CacheDir, VLMSets: opt.Sets, VLM: opt.Reader, VLMName: opt.ReaderName,
		Size: opt.Size, Decode: opt.Decode, Seed: opt.Seed, Progress: progress})
	if err != nil {
		return nil, err
	}
	if opt.Damaged != nil {
		for _, d := range res.Stats.Damaged {
			opt.Damaged(d)
		}
	}
	out := make([]map[string][]float64, len(items))
	for i, it := range res.Items {
		out[i] = it.VLM
	}
	return out, nil
}

// scoreVLM scores the items idx of one decoded video under every VLM set:
// row maps each decoded time to its frame. It returns their scores in the
// order of idx.
func scoreVLM(ctx context.Context, items []*harness.Item, idx []int, opt *Options, info decode.Info, row map[time.Duration]int, frames []imageprep.Frame) ([]map[string][]float64, error) {
	got := make([]map[string][]float64, len(idx))
	prep := vlmFrames(opt.VLM)
	var prompts []models.VLMPrompt
	type slot struct{ item, set, perm int }
	var slots []slot
	for k, i := range idx {
		it := items[i]
		seed := itemSeed(opt.Seed, it)
		for si, s := range opt.VLMSets {
			ts, err := s.Sampler.Times(info, clipOf(it), seed)
			if errors.Is(err, decode.ErrClipOutside) {
				continue // no scores: the item's clip has no frames
			}
			if err != nil {
				return nil, fmt.Errorf("features: %s: frame set %s: %w", it.Source, s.Name, err)
			}
			order := make([]imageprep.Frame, len(ts))
			for j, t := range ts {
				rw, ok := row[t]
				if !ok {
					return nil, fmt.Errorf("features: %s: frame at %v of set %s is not in the plan of its video", it.Source, t, s.Name)
				}
				order[j] = frames[rw]
			}
			if s.Shuffle {
				perm := decode.Shuffle(len(order), seed)
				shuffled := make([]imageprep.Frame, len(order))
				for j, p := range perm {
					shuffled[j] = order[p]
				}
				order = shuffled
			}
			for pk := 0; pk <= s.Permutations; pk++ {
				pit := it
				if pk > 0 {
					if opt.Permute == nil {
						return nil, fmt.Errorf("features: frame set %s asks for option permutations and no Permute was given", s.Name)
					}
					pit = permuted(it, opt.Permute(it, pk))
				}
				p, ok, err := fitPrompt(ctx, prep, pit, order)
				if err != nil {
					return nil, fmt.Errorf("features: vlm_reader: %s: %w", it.Source, err)
				}
				if ok {
					prompts = append(prompts, p)
					slots = append(slots, slot{k, si, pk})
				}
			}
		}
	}
	chunk := vlmChunk
	if _, ok := opt.VLM.(VLMGroups); ok {
		chunk = max(len(prompts), 1) // the video's prompts as one group
	}
	for lo := 0; lo < len(prompts); lo += chunk {
		hi := min(lo+chunk, len(prompts))
		scores, err := opt.VLM.Score(ctx, prompts[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("features: vlm_reader: %w", err)
		}
		for j, sc := range scores {
			sl := slots[lo+j]
			if got[sl.item] == nil {
				got[sl.item] = map[string][]float64{}
			}
			got[sl.item][PermutedName(opt.VLMSets[sl.set].Name, sl.perm)] = sc
		}
	}
	return got, nil
}

// permuted returns a copy of it whose option j is its option perm[j].
func permuted(it *harness.Item, perm []int) *harness.Item {
	c := *it
	c.Options = make([]string, len(perm))
	for j, o := range perm {
		c.Options[j] = it.Options[o]
		if o == it.Answer {
			c.Answer = j
		}
	}
	return &c
}

// A VLMGroups is a VLMScorer that takes all of one video's prompts in one
// Score call and several videos' calls at once: a served reader, whose
// client bounds the requests in flight and sends a call's prompts as one
// group, so that the server's prefix cache holds the video's frames while
// its questions are asked (the issue's "video by video, up to concurrency
// in flight"). VideosInFlight is how many videos' calls to make at once;
// the scores do not depend on it.
type VLMGroups interface {
	VLMScorer
	VideosInFlight() int
}

// vlmChunk is how many prompts go to vlm_reader per call, so that a
// cancelled run stops within one chunk.
const vlmChunk = 16

// fitPrompt writes the item's prompt with frames, keeping every second
// frame (their order kept) until the prompt fits the model; ok is false
// when not even one frame fits.
func fitPrompt(ctx context.Context, r VLMScorer, it *harness.Item, frames []imageprep.Frame) (p models.VLMPrompt, ok bool, err error) {
	for len(frames) > 0 {
		images, err := r.Frames(ctx, frames)
		if err != nil {
			return p, false, err
		}
		p = vlmPrompt(it, images)
		if r.Fits(p) == nil {
			return p, true, nil
		}
		if len(frames) == 1 {
			break
		}
		kept := make([]imageprep.Frame, 0, (len(frames)+1)/2)
		for j := 0; j < len(frames); j += 2 {
			kept = append(kept, frames[j])
		}
		frames = kept
	}
	return p, false, nil
}

// vlmPrompt gives an item to vlm_reader: its frames, then the authors'
// visual prompt (letters.KindVisual: the number of frames, the question,
// the lettered options), which the reader words and frames with its chat
// template; Text is the plain rendering, the images first.
func vlmPrompt(it *harness.Item, images models.ImageBatch) models.VLMPrompt {
	parts := letters.Parts{Kind: letters.KindVisual, Question: it.Question, Options: it.Options, Frames: images.N}
	return models.VLMPrompt{Text: strings.Repeat(models.ImagePlaceholder, images.N) + letters.Default().Plain(parts), Images: images, Options: len(it.Options), Parts: parts}
}

// itemSeed is the seed of one item's seeded frame sets: a hash of the
// run's seed and the item's key, so it does not depend on the item's place
// in the file or the worker count.
func itemSeed(seed uint64, it *harness.Item) uint64 {
	h := fnv.New64a()
	io.WriteString(h, it.Key())
	x := h.Sum64() ^ seed
	x += 0x9e3779b97f4a7c15 // SplitMix64's finaliser
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// A seededRequest is one frame set of one item: its clip, sampler and seed.
type seededRequest struct {
	clip    decode.Clip
	sampler decode.Sampler
	seed    uint64
}

// seededPlan is the union of the times of its requests, as one sampler, so
// that each video is decoded once for all its items' sets.
type seededPlan []seededRequest

func (p seededPlan) Times(in decode.Info, _ decode.Clip, _ uint64) ([]time.Duration, error) {
	var all []time.Duration
	for _, r := range p {
		ts, err := r.sampler.Times(in, r.clip, r.seed)
		if errors.Is(err, decode.ErrClipOutside) {
			continue // its item fails alone (see planSampler.Times)
		}
		if err != nil {
			return nil, err
		}
		all = append(all, ts...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

func (p seededPlan) String() string {
	var b strings.Builder
	b.WriteString("vlm-plan(")
	for i, r := range p {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, "%s@%d-%d#%d", r.sampler, r.clip.Start, r.clip.End, r.seed)
	}
	b.WriteString(")")
	return b.String()
}

// vlmKey is the content key of one video's VLM scores.
func vlmKey(videoHash string, items []*harness.Item, idx []int, readerName string, size decode.Size, sets []VLMSet, seed uint64) string {
	h := sha256.New()
	var n [8]byte
	write := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	write(fmt.Sprintf("vidscreen-vlm/%d", vlmCacheFormat))
	write(videoHash)
	write(readerName)
	write(imageprep.Version)
	write(size.String())
	for _, s := range sets {
		write(s.String())
	}
	for _, i := range idx {
		it := items[i]
		c := clipOf(it)
		write(fmt.Sprintf("%d-%d#%d", c.Start, c.End, itemSeed(seed, it)))
		write(vlmPrompt(it, models.ImageBatch{}).Text)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// vlmEntry is one video's cache file: per item of the video (in the order
// of the key), its scores by set name, and how long the video lasts.
type vlmEntry struct {
	Format     int                    `json:"format"`
	Path       string                 `json:"path"` // where the video was when scored; not part of the key
	DurationNS int64                  `json:"duration_ns"`
	Items      []map[string][]float64 `json:"items"`
}

func vlmPath(dir, key string) string { return filepath.Join(dir, "vlm-"+key+".json") }

// loadVLM returns the cached entry of a key, or nil when there is none.
// JSON writes each float64 so that it reads back to the same bits.
func loadVLM(dir, key string, n int) (*vlmEntry, error) {
	b, err := checksum.ReadFile(vlmPath(dir, key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("vlm cache: %w", err)
	}
	var e vlmEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Format != vlmCacheFormat || len(e.Items) != n {
		return nil, nil // a torn or foreign entry is recomputed
	}
	if unanswered(e.Items) {
		return nil, nil // written before failed prompts were kept out: asked again
	}
	return &e, nil
}

// unanswered reports whether a video's scores hold a prompt the reader was
// asked and gave no row for (nil: a served reader's server failed after
// its retries). Such scores are never stored: the items fail with reason
// letters.FailureServer and a resumed run asks again.
func unanswered(items []map[string][]float64) bool {
	for _, m := range items {
		for _, sc := range m {
			if sc == nil {
				return true
			}
		}
	}
	return false
}

// unansweredErr is the error of an item some of whose prompts the served
// reader's server failed on, for Item.Err.
func unansweredErr(it *harness.Item, scores map[string][]float64) error {
	var sets []string
	for name, sc := range scores {
		if sc == nil {
			sets = append(sets, name)
		}
	}
	if len(sets) == 0 {
		return nil
	}
	slices.Sort(sets)
	return fmt.Errorf("%s: vlm_reader's server failed after its retries on frame sets %s", it.Source, strings.Join(sets, ", "))
}

func storeVLM(dir, key, path string, items []map[string][]float64, duration time.Duration) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("vlm cache: %w", err)
	}
	return checksum.Write(vlmPath(dir, key), func(w io.Writer) error {
		return json.NewEncoder(w).Encode(vlmEntry{Format: vlmCacheFormat, Path: path, DurationNS: int64(duration), Items: items})
	})
}
