package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
)

// ImageText is the image_text role on one device (models.ImageText): an
// image tower for the feature stage and a text tower for the texts the
// frames are compared with.
type ImageText interface {
	features.ImageEncoder
	EmbedTexts(ctx context.Context, texts []string) ([][]float32, error)
	LogitScale() float64
	LogitBias() float64
	// Sigmoid reports SigLIP's zero-shot rule (attack.Visual.Sigmoid).
	Sigmoid() bool
}

// VideoModels are the models the frame and order levels run, with what
// identifies them in cache keys and config.json.
type VideoModels struct {
	// ImageText holds the image_text role once per device (nil when the
	// models directory has none); ImageName names its weights (file hashes).
	ImageText []ImageText
	ImageName string
	// Prep is image_text's preprocessing (its preprocessor_config.json).
	Prep *imageprep.Processor
	// DeviceImage, when set, is the GPU frame path of ImageText, one per
	// device in its order (features.Options.DeviceImage); ImageName is
	// then DeviceFramesName of the weights' name, and HostImageName the
	// weights' name itself.
	DeviceImage   []features.DeviceImageEncoder
	HostImageName string
	// Captioner holds the captioner role once per device (nil when absent);
	// CaptionerName names its weights.
	Captioner     []features.Captioner
	CaptionerName string
	// Devices is the pool of the devices ImageText, Captioner, VLM and the
	// decoders (Decode.Sets) run on, one each, in the same order (nil: one
	// device, no memory budget).
	Devices *gpu.Pool
	// Size is the size frames are decoded at.
	Size decode.Size
	// Decode sizes the decoders; Decode.Options.Timeout is the per-video
	// deadline.
	Decode decode.Pool
	// MaxBatch is the most frames per image tower run.
	MaxBatch int
	// VLM is the vlm_reader role (nil when absent), VLMName names its
	// weights, and VLMSize is the size its frames are decoded at.
	VLM     features.VLMScorer
	VLMName string
	VLMSize decode.Size
	// Screen is the screen_reader role: the smaller VLM of the screening
	// funnel's 32-frame steps (Video-Index 5.1), full-video-reader and
	// shuffled-frames-screen-reader. Nil when the models directory has
	// none: vlm_reader serves full-video-reader, and the funnel's shuffled
	// step is the card's shuffled-frames-reader.
	// ScreenName names its weights, ScreenSize the size its frames are
	// decoded at.
	Screen     features.VLMScorer
	ScreenName string
	ScreenSize decode.Size
	// ExtraVLM are the later vlm_reader entries of models.json, each a
	// further model of the centre-frame and frame-shuffling tests
	// (centre-frame-reader#2, shuffled-frames-reader#2, ...; Video-Oasis
	// 3.2), with the names of their weights and settings and the sizes
	// their frames are decoded at, in the list's order.
	ExtraVLM      []features.VLMScorer
	ExtraVLMNames []string
	ExtraVLMSizes []decode.Size
	// servedVLM, servedScreen and servedExtra (one per ExtraVLM) say which
	// VLM readers a server serves: their decode size stays the served one
	// with either --frame-resize (resizeInProcessor).
	servedVLM, servedScreen bool
	servedExtra             []bool
	// ASR is the asr role (nil when absent): the transcript attackers'
	// transcripts (transcripts.go); ASRName names its weights.
	ASR     Transcriber
	ASRName string
}

// roles lists the roles of the models an audit has, for attack.Config.
func (o *Options) roles() []string {
	var out []string
	if v := o.Video; v != nil && len(v.ImageText) > 0 {
		out = append(out, attack.RoleImageText)
	}
	if o.Embedder != nil {
		out = append(out, attack.RoleTextEmbed)
	}
	if v := o.Video; v != nil && len(v.Captioner) > 0 && len(v.ImageText) > 0 { // captions are of the image tower's frames
		out = append(out, attack.RoleCaptioner)
	}
	if o.Reader != nil {
		out = append(out, attack.RoleLMReader)
	}
	if v := o.Video; v != nil && v.VLM != nil {
		out = append(out, attack.RoleVLMReader)
	}
	if v := o.Video; v != nil && v.VLM != nil && v.Screen != nil {
		out = append(out, attack.RoleScreenReader)
	}
	if v := o.Video; v != nil && v.ASR != nil {
		out = append(out, attack.RoleASR)
	}
	return out
}

// frames is the number of uniform frames of the frame and order attackers.
func (o *Options) frames() int {
	if o.Frames > 0 {
		return o.Frames
	}
	return features.UniformFrames
}

// vlmSets returns the frame sets the VLM readers need, in a fixed order,
// each scored on the original options and on perms permutations of them
// (the option-permutation audit of every model reader; 0 when it is off).
func vlmSets(needs attack.Needs, frames, perms int) []features.VLMSet {
	centre, shuffled, tenth := features.VLMSets(frames)
	centre.Permutations, shuffled.Permutations, tenth.Permutations = perms, perms, perms
	// full-video-reader reads the frames in order: the temporal
	// diagnostics' base set, scored once for both (inOrder).
	inOrder, _ := features.DiagnosticSets(frames)
	var sets []features.VLMSet
	for _, s := range []struct {
		n   attack.Needs
		set features.VLMSet
	}{{attack.NeedVLMCentre, centre}, {attack.NeedVLMShuffled, shuffled}, {attack.NeedVLMTenth, tenth}, {attack.NeedVLMInOrder, inOrder}} {
		if needs.Has(s.n) {
			sets = append(sets, s.set)
		}
	}
	if needs.Has(attack.NeedVLMChunks) {
		sets = append(sets, chunkSets()...)
	}
	return sets
}

// chunkSets are the eight-chunk reader's frame sets (attack.VLMChunk): 16
// uniform frames of each of eight contiguous chunks of the clip, on the
// Video-Oasis authors' grid (decode's chunk sampler), each scored on the
// original option order only (the reader is no part of the permutation
// audit).
func chunkSets() []features.VLMSet {
	out := make([]features.VLMSet, attack.VLMChunks)
	for k := range out {
		spec := fmt.Sprintf("chunk:%d,of:%d,n:%d", k+1, attack.VLMChunks, attack.VLMChunkFrames)
		sampler, err := decode.ParseSampler(spec)
		if err != nil {
			panic(fmt.Sprintf("chunk sampler %q: %v", spec, err)) // a constant spec
		}
		out[k] = features.VLMSet{Name: attack.VLMChunk(k + 1), Sampler: sampler}
	}
	return out
}

// allVLMSets returns the VLM sets of a run: those of its VLM readers, the
// halves and shifted grids with their base when the order level's VLM
// readers run, then the reference's full protocol with --reference-model.
func (o *Options) allVLMSets(needs attack.Needs) []features.VLMSet {
	sets := vlmSets(needs, o.frames(), attack.Config{Permutations: o.Permutations}.PermutationCount())
	if runsDiagnostics(needs) {
		base, conds := features.DiagnosticSets(o.frames())
		sets = append(append(sets, base), conds...)
	}
	if o.ReferenceModel {
		sets = append(sets, referenceSet(ReferenceFrames))
	}
	return dedupeSets(sets)
}

// decodeSize is the size a run decodes frames at: with VLM sets, the
// larger of the image tower's and vlm_reader's (display size where either
// reads full frames, --frame-resize processor), since one pass serves both
// and each model resizes down from it. Without an image tower v.Size asks
// for nothing (the zero Size there is no request for display size).
func (o *Options) decodeSize(needs attack.Needs) decode.Size {
	v := o.Video
	var sizes []decode.Size
	if len(v.ImageText) > 0 || v.Size != (decode.Size{}) {
		sizes = append(sizes, v.Size)
	}
	if len(o.allVLMSets(needs)) > 0 {
		sizes = append(sizes, v.VLMSize)
	}
	return largestSize(sizes...)
}

// frameSets returns the frame sets the attackers need.
func frameSets(needs attack.Needs, frames int) []features.Set {
	uniform, captioned := features.UniformSets(frames)
	var sets []features.Set
	if needs.Has(attack.NeedCentre) {
		sets = append(sets, features.CentreSet)
	}
	if needs.Has(attack.NeedBag) {
		sets = append(sets, features.BagSet)
	}
	// The 32 uniform frames are always taken: their mean embedding is the
	// v_i of the effective size (Video-Index 4.5).
	if needs.Has(attack.NeedCaptions) {
		sets = append(sets, captioned)
	} else if needs != 0 {
		sets = append(sets, uniform)
	}
	return sets
}

// screenSet is the frame set screen_reader scores for full-video-reader: the
// run's uniform frames in time order.
func (o *Options) screenSet() features.VLMSet {
	inOrder, _ := features.DiagnosticSets(o.frames())
	return features.VLMSet{Name: "screen-" + strings.TrimPrefix(inOrder.Name, "vlm-"), Sampler: inOrder.Sampler}
}

// screenShuffledSet is the frame set screen_reader scores for
// shuffled-frames-screen-reader: shuffled-frames-reader's frames in its
// seeded shuffle (the shuffle is drawn from the run's seed and the item
// alone), on the original option order.
func (o *Options) screenShuffledSet() features.VLMSet {
	_, shuffled, _ := features.VLMSets(o.frames())
	shuffled.Name = attack.VLMShuffledScreen
	return shuffled
}

// screenSets returns the sets screen_reader scores: the in-order frames
// when full-video-reader runs, the shuffled ones when
// shuffled-frames-screen-reader does; none without a screen_reader.
func (o *Options) screenSets(needs attack.Needs) []features.VLMSet {
	if o.Video == nil || o.Video.Screen == nil {
		return nil
	}
	var sets []features.VLMSet
	if needs.Has(attack.NeedVLMInOrder) {
		sets = append(sets, o.screenSet())
	}
	if needs.Has(attack.NeedVLMShuffled) {
		sets = append(sets, o.screenShuffledSet())
	}
	return sets
}

// screenDecodeSize is the size screen_reader's frames are decoded at: the
// run's decode size, or screen_reader's where larger (largestSize), so that
// the frames it reads are those vlm_reader reads whenever they can be.
func (o *Options) screenDecodeSize(needs attack.Needs) decode.Size {
	return largestSize(o.decodeSize(needs), o.Video.ScreenSize)
}

// screenReaderScores replaces, in vis, the in-order scores full-video-reader
// reads (attack.VLMInOrder) by screen_reader's on the same frames, and puts
// screen_reader's scores of the shuffled frames under
// attack.VLMShuffledScreen (shuffled-frames-screen-reader): the funnel's
// smaller VLM (Video-Index 5.1). The card's shuffled-frames-reader keeps
// vlm_reader's. Every item's come from screen_reader, so each step is one
// model's: an item it could not score (its video failed, its prompt fits no
// frame count) has none, and the reader guesses there. The scores are
// computed, or read from the run's cache, in a pass of their own
// (features.ReadVLM), keyed by screen_reader's weights.
func (a *audit) screenReaderScores(ctx context.Context, vis []*attack.Visual, sets []features.VLMSet) error {
	v := a.opt.Video
	scores, err := features.ReadVLM(ctx, a.items, features.VLMOptions{
		Root: a.opt.VideoRoot, CacheDir: filepath.Join(a.opt.Out, rundir.CacheDir), Sets: sets,
		Reader: v.Screen, ReaderName: v.ScreenName, Size: a.opt.screenDecodeSize(needsOf(a.attackers)), Decode: v.Decode, Seed: a.opt.Seed,
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
		}
		return fmt.Errorf("screen_reader: %w", err)
	}
	a.failUnanswered(scores)
	key := map[string]string{a.opt.screenSet().Name: attack.VLMInOrder, attack.VLMShuffledScreen: attack.VLMShuffledScreen}
	for i, x := range vis {
		m := make(map[string][]float64, len(x.VLM)+len(sets))
		for k, sc := range x.VLM {
			m[k] = sc
		}
		for _, set := range sets {
			delete(m, key[set.Name])
			if sc, ok := scores[i][set.Name]; ok && x.Failure == "" {
				m[key[set.Name]] = sc
			}
		}
		x.VLM = m
	}
	return nil
}

// inOrderScores returns vlm, with the scores of the in-order set (named
// name by the feature stage) also under attack.VLMInOrder, the key
// full-video-reader reads; vlm itself is not changed.
func inOrderScores(vlm map[string][]float64, name string) map[string][]float64 {
	sc, ok := vlm[name]
	if !ok {
		return vlm
	}
	out := make(map[string][]float64, len(vlm)+1)
	for k, v := range vlm {
		out[k] = v
	}
	out[attack.VLMInOrder] = sc
	return out
}

func needsOf(atts []attack.Attacker) attack.Needs {
	var n attack.Needs
	for _, at := range atts {
		n |= attack.FrameNeeds(at)
	}
	return n
}

// videoStage is the feature stage of an audit and the assembly of what the
// frame attackers read: per item, its frames' embeddings and vlm_reader's
// scores (through features.Extract and its caches: each video is decoded
// once, for every frame set and VLM set, the reference's included) and its
// texts embedded by image_text and text_embed (through the run's embedding
// cache). It fills a.visual, a.failures, a.refScores and a.decodedSeconds;
// it does nothing when no attacker of the run reads frames and no
// reference model runs.
func (a *audit) videoStage(ctx context.Context, emb textEmbedder) error {
	needs := needsOf(a.attackers)
	vsets := a.opt.allVLMSets(needs)
	if needs == 0 && len(vsets) == 0 {
		return nil
	}
	v := a.opt.Video
	mtr := newFeatureMeter(a.opt.Progress)
	fopt := a.featureOptions(needs, vsets)
	fopt.Progress = mtr.add
	fr, err := features.Extract(ctx, a.items, fopt)
	mtr.end(err == nil)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
		}
		return err
	}
	a.features = &fr.Stats
	st := fr.Stats
	for _, d := range st.Damaged {
		a.cacheDamaged(d)
	}
	a.opt.Progress.Note("features done", "videos", st.Videos, "cached", st.Cached, "computed", st.Computed, "failed", st.Failed,
		"unresolved", st.Unresolved, "failed_by", failedBy(st.FailedBy),
		"opened", st.Opened, "frames_decoded", st.FramesDecoded, "frames_embedded", st.FramesEmbedded, "frames_by_device", fmt.Sprint(st.FramesByDevice), "captions", st.Captions, "empty_captions", st.EmptyCaptions)
	if st.EmptyCaptions > 0 {
		a.opt.Progress.Warn(fmt.Sprintf("the captioner wrote %d empty captions (does its tokenizer.json know the ids it writes?); the caption attackers see nothing of those frames", st.EmptyCaptions),
			"empty_captions", st.EmptyCaptions, "captioner", v.CaptionerName)
	}
	a.decodedSeconds = make([]float64, len(a.items))
	a.refScores = make([][]float64, len(a.items))
	a.inputs = make([]string, len(a.items))
	a.videoContent = make([]string, len(a.items))
	for i, f := range fr.Items {
		a.inputs[i] = videoInput(f.Hash, a.cfg.Videos)
		a.videoContent[i] = f.Hash
		a.fail(i, f.Failure)
		a.decodedSeconds[i] = f.Duration.Seconds()
		a.refScores[i] = f.VLM[referenceSet(ReferenceFrames).Name]
	}
	if err := noVideoRead(a.items, fr.Items, a.opt.VideoRoot); err != nil {
		return err
	}
	if err := a.identifyVideos(ctx, fr); err != nil {
		return err
	}
	if runsDiagnostics(needs) {
		scores := make([]map[string][]float64, len(a.items))
		for i, f := range fr.Items {
			scores[i] = f.VLM
		}
		base, conds := diagnosticSets(needs, a.opt.frames())
		a.diagnostics = orderDiagnostics(a.items, scores, base, conds, "vlm_reader:"+v.VLMName, a.opt.frames())
	}
	if needs == 0 {
		return nil
	}
	var scale, bias float64 // the image tower's, for the similarity attackers
	var sigmoid bool
	if len(v.ImageText) > 0 {
		scale, bias, sigmoid = v.ImageText[0].LogitScale(), v.ImageText[0].LogitBias(), v.ImageText[0].Sigmoid()
	}

	n := len(a.items)
	vis := make([]*attack.Visual, n)
	inOrder, _ := features.DiagnosticSets(a.opt.frames())
	for i, f := range fr.Items {
		vis[i] = &attack.Visual{Failure: f.Failure, Scale: scale, Bias: bias, Sigmoid: sigmoid, VLM: inOrderScores(f.VLM, inOrder.Name)}
	}
	if sets := a.opt.screenSets(needs); len(sets) > 0 {
		if err := a.screenReaderScores(ctx, vis, sets); err != nil {
			return err
		}
	}
	if err := a.extraVLMScores(ctx, vis, needs); err != nil {
		return err
	}
	if len(v.ImageText) == 0 {
		// Served VLM readers alone (attack.Config.VLMOwnFrames): nothing
		// was embedded, so no frame is compared with a text, and the
		// effective size, which needs frame embeddings, is left null.
		for i, f := range a.failures {
			if f != "" {
				vis[i].Failure = f
			}
		}
		a.visual = vis
		return nil
	}

	// Texts in the image_text space: questions, options, question+option.
	var questions, options, qoptions []string
	var optionItem []int // the item of each row of options and qoptions
	for i, item := range a.items {
		questions = append(questions, item.Question)
		for _, o := range item.Options {
			options = append(options, o)
			qoptions = append(qoptions, item.Question+" "+o)
			optionItem = append(optionItem, i)
		}
	}
	byItem := func(bad []int) {
		for _, r := range bad {
			a.textFailed(r)
		}
	}
	byOption := func(bad []int) {
		for _, r := range bad {
			a.textFailed(optionItem[r])
		}
	}
	// The text tower is the same on either frame path: its embeddings
	// are named by the weights alone.
	itName := HostFramesName(v.ImageName)
	var itEmb textEmbedder = rowsEmbedder{v.ImageText[0], itName}
	if v.Devices != nil {
		// The text tower on every device, as the other text encoders.
		sp := &spread.TextEmbedder{Pool: v.Devices, Work: "image_text_text"}
		for _, m := range v.ImageText {
			sp.Encoders = append(sp.Encoders, rowsEmbedder{m, itName})
		}
		itEmb = sp
	}
	cache := a.cache()
	var qm, om, qom *kernels.Matrix
	var bad []int
	if needs.Has(attack.NeedBag) {
		if qm, bad, err = cachedEmbed(ctx, cache, "it-question", itEmb, questions); err != nil {
			return err
		}
		byItem(bad)
	}
	if om, bad, err = cachedEmbed(ctx, cache, "it-options", itEmb, options); err != nil {
		return err
	}
	byOption(bad)
	if needs.Has(attack.NeedCentre) {
		if qom, bad, err = cachedEmbed(ctx, cache, "it-qoptions", itEmb, qoptions); err != nil {
			return err
		}
		byOption(bad)
	}
	// Texts in the text_embed space: options and the captions.
	var tom, capm *kernels.Matrix
	capRow := map[string]int{}
	capBad := map[string]bool{} // captions the model gave a non-finite embedding
	if needs.Has(attack.NeedCaptions) {
		if tom, bad, err = cachedEmbed(ctx, cache, "te-options", emb, options); err != nil {
			return err
		}
		byOption(bad)
		var caps []string
		for _, vid := range fr.Videos {
			for _, c := range vid.Captions {
				if _, ok := capRow[c]; !ok && c != "" {
					capRow[c] = len(caps)
					caps = append(caps, c)
				}
			}
		}
		if capm, bad, err = cachedEmbed(ctx, cache, "te-captions", emb, caps); err != nil {
			return err
		}
		for _, r := range bad {
			capBad[caps[r]] = true
		}
	}

	// The questions under text_embed, for the effective size.
	if a.opt.Embedder != nil {
		qs := make([]string, len(a.items))
		for i, item := range a.items {
			qs[i] = item.Question
		}
		if a.questionTE, bad, err = cachedEmbed(ctx, cache, "question", emb, qs); err != nil {
			return err
		}
		byItem(bad)
	}
	a.meanFrames = make([][]float32, n)
	off := 0
	for i, item := range a.items {
		k := len(item.Options)
		x := vis[i]
		x.Options = sliceRows(om, off, off+k)
		if qom != nil {
			x.QuestionOptions = sliceRows(qom, off, off+k)
		}
		if tom != nil {
			x.OptionTexts = sliceRows(tom, off, off+k)
		}
		off += k
		if qm != nil {
			x.Question = qm.Row(i)
		}
		f := fr.Items[i]
		if f.Failure != "" {
			continue
		}
		vid := fr.Videos[f.Video]
		a.meanFrames[i] = meanRows(vid.Embeddings, f.Rows[features.UniformSet.Name])
		if r := f.Rows[features.CentreSet.Name]; len(r) > 0 {
			x.Centre = vid.Embeddings.Row(r[0])
		}
		if r := f.Rows[features.BagSet.Name]; len(r) > 0 {
			x.Bag = pickRows(vid.Embeddings, r)
		}
		if capm != nil {
			var rows []int
			for _, r := range f.Rows[features.CaptionSet.Name] {
				if c := vid.Captions[r]; c != "" {
					if capBad[c] {
						a.textFailed(i)
					}
					rows = append(rows, capRow[c])
					x.CaptionTexts = append(x.CaptionTexts, c)
				}
			}
			if len(rows) > 0 {
				x.Captions = pickRows(capm, rows)
			}
		}
	}
	// An item that failed, here or at the text embedding stage, is
	// abstained on by every frame attacker and left out of the effective
	// size.
	for i, f := range a.failures {
		if f != "" {
			vis[i].Failure = f
			a.meanFrames[i] = nil
		}
	}
	if needs.Has(attack.NeedTranscript) {
		if err := a.transcripts(ctx, emb, vis, fr); err != nil {
			return err
		}
	}
	a.visual = vis
	return nil
}

// videoInput is the rundir.Record.Input of a frame or order answer about a video
// whose bytes hash to hash: 16 hex digits of a SHA-256 of that hash and of
// how the video's features were made (VideoConfig: the models with their
// files' hashes and settings, the frame sets), so that an answer is used
// only while both are what it read. "" when the video could not be read.
func videoInput(hash string, v *rundir.VideoConfig) string {
	if hash == "" {
		return ""
	}
	b, _ := json.Marshal(v) // a struct of strings and ints: cannot fail
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s\n", len(hash), hash)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// dropStale forgets the stored answers of the frame attackers that were
// made of other bytes than the items' videos hold now, or whose videos now
// fail (a video replaced, restored after a failed run, or truncated since):
// such an answer belongs to another video, and is computed again, as a
// fresh run would (issue 24, 2.1). A run without a video level has no such
// answers.
func (a *audit) dropStale() {
	dropped := 0
	for _, u := range a.units {
		if !u.frames {
			continue
		}
		for i := range a.items {
			i32 := int32(i)
			if !u.ans.has(i32) {
				continue
			}
			failed := a.failures != nil && a.failures[i] != ""
			if failed || a.inputs == nil || u.ans.input[i] != inputID(a.inputs[i]) {
				u.ans.drop(i32)
				u.stored--
				dropped++
			}
		}
	}
	if dropped > 0 {
		a.opt.Progress.Note("stored answers read other bytes than the videos hold now, or their videos now fail: computed again", "answers", dropped)
	}
}

// featureOptions configures features.Extract for the frame sets needs
// asks for and the VLM sets vsets; a shard and the whole audit use the
// same, so that the shard's cache entries are the ones the merge looks up.
func (a *audit) featureOptions(needs attack.Needs, vsets []features.VLMSet) features.Options {
	v := a.opt.Video
	fopt := features.Options{
		Root: a.opt.VideoRoot, CacheDir: filepath.Join(a.opt.Out, rundir.CacheDir),
		Size: a.opt.decodeSize(needs), Decode: v.Decode, MaxBatch: v.MaxBatch,
		VLMSets: vsets, VLM: v.VLM, VLMName: v.VLMName, Seed: a.opt.Seed,
		Permute: func(it *harness.Item, k int) []int { return attack.OptionPermutation(a.opt.Seed, it, k) },
	}
	if needs != 0 && len(v.ImageText) > 0 {
		encs := make([]features.ImageEncoder, len(v.ImageText))
		for d, m := range v.ImageText {
			encs[d] = m
		}
		fopt.Sets, fopt.Image, fopt.ImageName, fopt.Prep = frameSets(needs, a.opt.frames()), encs, v.ImageName, v.Prep
		fopt.Devices = v.Devices
		fopt.DeviceImage, fopt.HostImageName = v.DeviceImage, v.HostImageName
		fopt.Captioner, fopt.CaptionerName = v.Captioner, v.CaptionerName
	}
	return fopt
}

// textEmbedder is what cachedEmbed needs of an embedder.
type textEmbedder interface {
	Name() string
	Dim() int
	Embed(context.Context, []string) (*kernels.Matrix, error)
}

// rowsEmbedder adapts image_text's text tower to textEmbedder.
type rowsEmbedder struct {
	m    ImageText
	name string
}

func (r rowsEmbedder) Name() string { return "image_text:" + r.name }
func (r rowsEmbedder) Dim() int     { return r.m.Dim() }
func (r rowsEmbedder) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	out := kernels.NewMatrix(len(texts), r.m.Dim())
	if len(texts) == 0 {
		return out, nil
	}
	rows, err := r.m.EmbedTexts(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("image_text text tower: %w", err)
	}
	for i, row := range rows {
		copy(out.Row(i), row)
	}
	return out, nil
}

// cachedEmbed embeds texts through the run's embedding cache. bad lists
// the texts the model gave a non-finite embedding (their rows are zero;
// embedAll); such a matrix is not cached, so that a resumed run finds the
// same failures.
func cachedEmbed(ctx context.Context, cache embedCache, kind string, e textEmbedder, texts []string) (m *kernels.Matrix, bad []int, err error) {
	if e == nil {
		return nil, nil, errors.New("no text embedder for " + kind)
	}
	key := rundir.ContentKey(e.Name(), nil, texts)
	m, err = cache.load(kind, key, len(texts), e.Dim())
	if err != nil || m != nil {
		return m, nil, err
	}
	if m, bad, err = embedAll(ctx, e, texts, func(int) {}); err != nil {
		return nil, nil, fmt.Errorf("embed %s: %w", kind, err)
	}
	if len(bad) > 0 {
		return m, bad, nil
	}
	return m, nil, cache.store(kind, key, m)
}

// fail records why item i failed; the first reason given stays.
func (a *audit) fail(i int, reason string) {
	if reason == "" {
		return
	}
	if a.failures == nil {
		a.failures = make([]string, len(a.items))
	}
	if a.failures[i] == "" {
		a.failures[i] = reason
	}
}

// textFailed records that a text model gave a non-finite embedding for one
// of item i's texts: the item fails with that reason, as when the image
// tower does so for a frame of its video, and the run goes on.
func (a *audit) textFailed(i int) { a.fail(i, features.FailureNonFinite) }

// sliceRows returns rows [lo, hi) of m as a matrix sharing m's storage.
func sliceRows(m *kernels.Matrix, lo, hi int) *kernels.Matrix {
	return &kernels.Matrix{Rows: hi - lo, Cols: m.Cols, Data: m.Data[lo*m.Cols : hi*m.Cols]}
}

// pickRows copies the listed rows of m into a new matrix.
func pickRows(m *kernels.Matrix, rows []int) *kernels.Matrix {
	out := kernels.NewMatrix(len(rows), m.Cols)
	for k, r := range rows {
		copy(out.Row(k), m.Row(r))
	}
	return out
}

// permuteVisual orders vis by order.
func permuteVisual(vis []*attack.Visual, order []int32) []*attack.Visual {
	out := make([]*attack.Visual, len(order))
	for p, i := range order {
		out[p] = vis[i]
	}
	return out
}

// featureMeter shows the feature stage as five stages of the run's
// reporter: videos finished (of those planned), frames decoded, frames
// embedded by the image tower, frames captioned and items scored by
// vlm_reader, each with its rate.
type featureMeter struct {
	r *progress.Reporter

	mu     sync.Mutex
	meters map[string]*progress.Meter
}

// featureStages names the meter of each kind of work features.Extract
// reports, and its unit.
var featureStages = map[string][2]string{
	"videos":    {"features", "videos"},
	"frames":    {"decode", "frames"},
	"embedded":  {"inference", "frames"},
	"captioned": {"caption", "frames"},
	"vlm":       {"vlm", "items"},
}

func newFeatureMeter(r *progress.Reporter) *featureMeter {
	return &featureMeter{r: r, meters: map[string]*progress.Meter{}}
}

func (m *featureMeter) add(what string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if what == "planned" {
		m.meters["videos"] = m.r.Stage("features", int64(n), "videos")
		return
	}
	mt, ok := m.meters[what]
	if !ok {
		st, known := featureStages[what]
		if !known {
			return
		}
		mt = m.r.Stage(st[0], 0, st[1])
		m.meters[what] = mt
	}
	mt.Add(int64(n))
}

// end finishes every stage (ok) or stops them where they are.
func (m *featureMeter) end(ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, what := range []string{"frames", "embedded", "captioned", "vlm", "videos"} {
		if ok {
			m.meters[what].Finish()
		} else {
			m.meters[what].Exit()
		}
	}
}

// noVideoRead is the error of a run none of whose videos could be read: a
// wrong --videos root, most likely, which would otherwise give cards whose
// frame and order levels all abstained (issue 20, point 11). It names the
// root and the first failing item's video; nil when any video was read or
// there were none.
func noVideoRead(items []*harness.Item, got []features.Item, root string) error {
	first := -1
	for i := range got {
		if got[i].Failure == "" || got[i].Failure == letters.FailureServer { // read; its reader's server failed
			return nil
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	f := got[first]
	return fmt.Errorf("no video of the %d items could be read under --videos %s: the first, %s (item %s of %s), is %s: %v",
		len(got), root, items[first].Video, items[first].ID, items[first].Benchmark, f.Failure, f.Err)
}

// failedBy formats the failed and unresolved videos by reason, reasons in
// name order: "missing:7,outside-root:2" ("none" for none).
func failedBy(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	reasons := make([]string, 0, len(m))
	for r := range m {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for i, r := range reasons {
		reasons[i] = fmt.Sprintf("%s:%d", r, m[r])
	}
	return strings.Join(reasons, ",")
}
