package vidomni

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// ImageTextModel is what the similarity verifier needs of the image_text
// role (*models.ImageText): unit embeddings of frames and of texts in one
// space.
type ImageTextModel interface {
	EmbedFrames(ctx context.Context, frames []imageprep.Frame) ([][]float32, error)
	EmbedTexts(ctx context.Context, texts []string) ([][]float32, error)
}

// A Judged pair is a verifier's output on one pair: labels (1 = Incorrect)
// and, for the similarity verifier, each sentence's best-frame similarity.
type Judged struct {
	Pair       *Pair
	Labels     []int8
	Similarity []float64 // nil for the VLM verifier
}

// FailedVideo is a video the verifier could not decode, with the reason;
// its pairs get no verdict.
type FailedVideo struct {
	Video string
	Err   error
}

// Similarities is the baseline that needs no VLM: for every sentence, the
// largest cosine between its text embedding and the embeddings of the
// video's sampled frames (a sentence no frame resembles is likely a
// hallucination). It returns one row per pair (nil for pairs whose video
// failed) and the failed videos. With a cache (nil for none), frame
// embeddings stored by an earlier run are read instead of decoding and
// embedding again, and new ones are stored.
func Similarities(ctx context.Context, m ImageTextModel, fs *FrameSampler, cache *FrameCache, pairs []*Pair) ([][]float64, []FailedVideo, error) {
	videos, of := uniqueVideos(pairs)
	frameEmb := make([][][]float32, len(videos))
	keys := make([]string, len(videos))
	var misses []int // indexes into videos
	for i, v := range videos {
		if cache != nil {
			if k, err := cache.key(fs.path(v), fs); err == nil {
				keys[i] = k
				frameEmb[i] = cache.load(k)
			}
		}
		if frameEmb[i] == nil {
			misses = append(misses, i)
		}
	}
	todo := make([]string, len(misses))
	for j, i := range misses {
		todo[j] = videos[i]
	}
	var failed []FailedVideo
	err := fs.Each(ctx, todo, func(j int, frames []imageprep.Frame) error {
		i := misses[j]
		e, err := m.EmbedFrames(ctx, frames)
		if err != nil {
			return fmt.Errorf("embed the frames of %s: %w", videos[i], err)
		}
		frameEmb[i] = e
		if cache != nil && keys[i] != "" {
			if err := cache.store(keys[i], e); err != nil {
				return fmt.Errorf("frame cache: %w", err)
			}
		}
		return nil
	}, func(j int, err error) error {
		failed = append(failed, FailedVideo{videos[misses[j]], err})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sims := make([][]float64, len(pairs))
	for i, p := range pairs {
		frames := frameEmb[of[i]]
		if frames == nil {
			continue
		}
		texts := make([]string, len(p.Sentences))
		for k, s := range p.Sentences {
			texts[k] = s.Text
		}
		emb, err := m.EmbedTexts(ctx, texts)
		if err != nil {
			return nil, nil, fmt.Errorf("embed the sentences of pair %s: %w", p.ID, err)
		}
		row := make([]float64, len(texts))
		for k, t := range emb {
			best := math.Inf(-1)
			for _, f := range frames {
				best = math.Max(best, dot(t, f))
			}
			row[k] = best
		}
		sims[i] = row
	}
	return sims, failed, nil
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Flag turns similarities into labels: a sentence whose best frame is less
// similar than threshold is flagged Incorrect.
func Flag(sims []float64, threshold float64) []int8 {
	out := make([]int8, len(sims))
	for k, s := range sims {
		if s < threshold {
			out[k] = 1
		}
	}
	return out
}

// MaxCandidates caps the thresholds FitThreshold tries.
const MaxCandidates = 256

// Fit is a fitted threshold and the mean per-pair precision, recall and F1
// it gives on the pairs it was fitted on.
type Fit struct {
	Threshold float64 `json:"threshold"`
	Metrics
}

// FitThreshold chooses the similarity threshold that maximises mean
// per-pair F1 (the benchmark's measure, with opt's policy for pairs
// without Incorrect sentences) on labelled pairs; sims[i] are pair i's
// similarities (nil rows are skipped). It tries the midpoints between
// consecutive distinct similarities of Correct and Incorrect sentences, or
// MaxCandidates of them at evenly spaced quantiles when there are more,
// plus thresholds below and above all of them; ties go to the lowest
// threshold, so the result is deterministic.
func FitThreshold(pairs []*Pair, sims [][]float64, opt Options) (Fit, error) {
	if opt.NoIncorrect == "" {
		opt.NoIncorrect = NoIncorrectZero
	}
	var all []float64
	for i, p := range pairs {
		if sims[i] == nil {
			continue
		}
		for k, s := range p.Sentences {
			if s.Label != Unknown {
				all = append(all, sims[i][k])
			}
		}
	}
	if len(all) == 0 {
		return Fit{}, fmt.Errorf("no labelled sentence to fit a threshold on")
	}
	sort.Float64s(all)
	distinct := all[:1]
	for _, v := range all[1:] {
		if v != distinct[len(distinct)-1] {
			distinct = append(distinct, v)
		}
	}
	cands := []float64{distinct[0] - 1e-6}
	if len(distinct)-1 <= MaxCandidates {
		for k := 0; k+1 < len(distinct); k++ {
			cands = append(cands, (distinct[k]+distinct[k+1])/2)
		}
	} else {
		for q := 1; q <= MaxCandidates; q++ {
			k := q * (len(distinct) - 1) / (MaxCandidates + 1)
			cands = append(cands, (distinct[k]+distinct[k+1])/2)
		}
	}
	cands = append(cands, distinct[len(distinct)-1]+1e-6)
	// Per pair, the sorted scores of its Incorrect and Correct sentences:
	// a threshold t flags those below it, counted by binary search.
	type split struct {
		pos, neg []float64
		known    bool
	}
	groups := make([]split, 0, len(pairs))
	for i, p := range pairs {
		if sims[i] == nil {
			continue
		}
		var g split
		for k, s := range p.Sentences {
			switch s.Label {
			case Incorrect:
				g.pos = append(g.pos, sims[i][k])
			case Correct:
				g.neg = append(g.neg, sims[i][k])
			}
		}
		sort.Float64s(g.pos)
		sort.Float64s(g.neg)
		g.known = len(g.pos)+len(g.neg) > 0
		groups = append(groups, g)
	}
	best := Fit{Threshold: math.NaN()}
	for _, t := range cands {
		var m mean
		for _, g := range groups {
			tp := sort.SearchFloat64s(g.pos, t) // scores < t
			fp := sort.SearchFloat64s(g.neg, t)
			m.add(opt.fromCounts(tp, fp, len(g.pos)-tp, g.known, true))
		}
		if got := m.metrics(); math.IsNaN(best.Threshold) || got.F1 > best.F1 {
			best = Fit{Threshold: t, Metrics: got}
		}
	}
	return best, nil
}

// LetterVLM is what the VLM verifier needs of the vlm_reader role
// (*models.VLMReader): frames to images, and log p(letter) after a prompt.
type LetterVLM interface {
	Frames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error)
	Score(ctx context.Context, prompts []models.VLMPrompt) ([][]float64, error)
}

// VLMQuestion asks a letter-scoring VLM for one sentence's label after the
// paper's prompt: the vlm_reader role scores option letters from one
// prefill rather than generating the JSON dictionary, so each sentence_k
// of the dictionary becomes a two-option question, A for 0 and B for 1.
func VLMQuestion(sentences []string, k int) string {
	return fmt.Sprintf("%s\nWhat is the label of sentence_%d?\nA. 0 (faithful to the video)\nB. 1 (contains a hallucination)\nAnswer:", VerificationPrompt(sentences), k+1)
}

// VerifyVLM labels every sentence with a vision-language model given the
// video's sampled frames and the paper's prompt (VLMQuestion): 1 when
// log p(B) > log p(A). It returns the pairs judged, in order; pairs whose
// video failed are left out.
func VerifyVLM(ctx context.Context, m LetterVLM, fs *FrameSampler, pairs []*Pair) ([]Judged, []FailedVideo, error) {
	videos, of := uniqueVideos(pairs)
	byVideo := make([][]int, len(videos))
	for i := range pairs {
		byVideo[of[i]] = append(byVideo[of[i]], i)
	}
	out := make([]Judged, len(pairs))
	var failed []FailedVideo
	err := fs.Each(ctx, videos, func(v int, frames []imageprep.Frame) error {
		images, err := m.Frames(ctx, frames)
		if err != nil {
			return fmt.Errorf("%s: %w", videos[v], err)
		}
		prefix := strings.Repeat(models.ImagePlaceholder, images.N) + "\n"
		for _, i := range byVideo[v] {
			p := pairs[i]
			texts := make([]string, len(p.Sentences))
			for k, s := range p.Sentences {
				texts[k] = s.Text
			}
			prompts := make([]models.VLMPrompt, len(texts))
			for k := range texts {
				prompts[k] = models.VLMPrompt{Text: prefix + VLMQuestion(texts, k), Images: images, Options: 2}
			}
			lp, err := m.Score(ctx, prompts)
			if err != nil {
				return fmt.Errorf("pair %s: %w", p.ID, err)
			}
			labels := make([]int8, len(texts))
			for k, l := range lp {
				if l[1] > l[0] {
					labels[k] = 1
				}
			}
			out[i] = Judged{Pair: p, Labels: labels}
		}
		return nil
	}, func(v int, err error) error {
		failed = append(failed, FailedVideo{videos[v], err})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var done []Judged
	for _, j := range out {
		if j.Pair != nil {
			done = append(done, j)
		}
	}
	return done, failed, nil
}
