package selection

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
)

// FullVideoReader and CaptionsReader are the model readers the red team
// re-runs on the released option order: the VLM at 32 frames in order and
// the caption attacker (Video-Index 5.2).
const (
	FullVideoReader = "full-video-reader"
	CaptionsReader  = "captions-reader"
	// RetrievalReader learns from its pool: it re-runs on the selection
	// with the run's lm_reader (Video-Index 3.4, 5.2).
	RetrievalReader = "retrieval-reader"
)

// modelReaders re-reads a selection, options in the released order, with
// the models the audit's model readers asked, through the audit's feature
// stage on the models run.OpenModels opens, so no second decode or model
// path: full-video-reader with the run's vlm_reader (Video-Index 5.2: the
// larger VLM at 32 frames, even where screening's 32-frame steps used a
// smaller screen_reader) on the run's in-order uniform frames
// (features.ReadVLM); captions-reader with the run's lm_reader on
// the captions the run's captioner writes of the same frames
// (run.CaptionOptions rebuilds the audit's caption pass from config.json).
// Its features are cached under a folder of their own: the run's cache keys
// hold the items' option order, which the release changes, and the gate
// writes nothing into a run.
type modelReaders struct {
	root, cache string
	// vlm is set when full-video-reader re-runs, with its frame set,
	// reader, the reader's name and the decode size and pool.
	vlm    bool
	set    features.VLMSet
	reader features.VLMScorer
	name   string
	size   decode.Size
	dec    decode.Pool
	seed   uint64
	// captions, when set, are the feature options of the audit's caption
	// pass, and letters the run's lm_reader: captions-reader re-run.
	captions *features.Options
	letters  attack.LetterReader
	// unread counts, over the calls, the items the VLM could not score;
	// uncaptioned those whose video gave no captions. why names each such
	// item with its reason, in the order met, so the terminal can say
	// which (issue 33.1.5).
	unread, uncaptioned, items int
	why                        []string
}

// unreadReason says why a reader got nothing from an item's video: the video not
// found under root (the usual cause: items without video_path, whose file
// name the screen does not carry), else a decode or model failure.
func unreadReason(root string, it *harness.Item) string {
	if _, err := harness.ResolveVideo(root, it); err != nil {
		return err.Error()
	}
	return "the video resolved but gave the reader nothing (a decode or model failure; the audit's log names it)"
}

func (r *modelReaders) Attackers() []string {
	var out []string
	if r.vlm {
		out = append(out, FullVideoReader)
	}
	if r.captions != nil {
		out = append(out, CaptionsReader)
	}
	return out
}

func (r *modelReaders) Visual(ctx context.Context, items []*harness.Item) ([]*attack.Visual, error) {
	out := make([]*attack.Visual, len(items))
	for i := range out {
		out[i] = &attack.Visual{}
	}
	if r.vlm {
		scores, err := features.ReadVLM(ctx, items, features.VLMOptions{Root: r.root, CacheDir: r.cache,
			Sets: []features.VLMSet{r.set}, Reader: r.reader, ReaderName: r.name, Size: r.size, Decode: r.dec, Seed: r.seed})
		if err != nil {
			return nil, err
		}
		for i := range items {
			if sc, ok := scores[i][r.set.Name]; ok {
				out[i].VLM = map[string][]float64{attack.VLMInOrder: sc}
			} else {
				r.unread++ // no scores: the reader abstains (a seeded guess, counted at chance)
				r.why = append(r.why, fmt.Sprintf("%s %s/%s: %s", FullVideoReader, items[i].Benchmark, items[i].ID, unreadReason(r.root, items[i])))
			}
		}
	}
	if r.captions != nil {
		fr, err := features.Extract(ctx, items, *r.captions)
		if err != nil {
			return nil, fmt.Errorf("caption the selection: %w", err)
		}
		for i, caps := range run.CaptionTexts(fr) {
			out[i].CaptionTexts = caps
			if len(caps) == 0 {
				r.uncaptioned++ // captions-reader abstains there, as in the audit
				r.why = append(r.why, fmt.Sprintf("%s %s/%s: no captions: %s", CaptionsReader, items[i].Benchmark, items[i].ID, unreadReason(r.root, items[i])))
			}
		}
	}
	r.items += len(items)
	return out, nil
}

// sayUnread writes, after the gate, how many items each model reader could
// not read under root: it abstained there, which counts at chance, and the
// user should know the gate was weaker. A nil r says nothing.
func (r *modelReaders) sayUnread(root string, env run.Env) {
	if r == nil {
		return
	}
	if r.unread > 0 {
		fmt.Fprintf(env.Stderr, "vidscreen select: %s could not read %d of the %d items it re-read under %s; it abstains there (counted at chance)\n", FullVideoReader, r.unread, r.items, root)
	}
	if r.uncaptioned > 0 {
		fmt.Fprintf(env.Stderr, "vidscreen select: %s found no captions for %d of the %d items it re-read under %s; it abstains there (counted at chance)\n", CaptionsReader, r.uncaptioned, r.items, root)
	}
	for k, w := range r.why {
		if k == maxUnreadNamed {
			fmt.Fprintf(env.Stderr, "vidscreen select:   and %d more\n", len(r.why)-k)
			break
		}
		fmt.Fprintf(env.Stderr, "vidscreen select:   %s\n", w)
	}
}

// maxUnreadNamed bounds the unread items named on the terminal.
const maxUnreadNamed = 20

// openModelReaders opens, for the red team, the models that answered the
// run's full-video-reader and captions-reader, when --models names a folder
// with them and --videos the videos; nil (the model readers' verdicts
// carried over) when either flag is missing or the run has neither reader.
// A model that is not the run's is refused: its answers would not be the
// ones the screen judged.
//
// A served role keeps its replies in the release directory out
// (cache/served-replies.store, as in an audit's run directory; never in
// the run, which the gate leaves as it is), so select run again with the
// same --out asks its servers nothing twice.
func openModelReaders(ctx context.Context, dir, videos string, device gpu.Spec, out string, cfg rundir.Config, env run.Env) (*modelReaders, func(), error) {
	if dir == "" || videos == "" || cfg.Videos == nil {
		return nil, func() {}, nil
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	_, hasVLM := m.Roles[models.RoleVLMReader]
	_, hasCaptioner := m.Roles[models.RoleCaptioner]
	_, ranCaptions := cfg.AttackerVersions[CaptionsReader]
	wantVLM := cfg.Videos.VLMReader != "" && hasVLM
	wantCaptions := cfg.Videos.Captioner != "" && cfg.LMReader != "" && ranCaptions && hasCaptioner
	if !wantVLM && !wantCaptions {
		return nil, func() {}, nil
	}
	am, err := run.OpenModels(ctx, dir, device, 0, true, out, env)
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() { am.Close() }
	v := am.Video
	r := &modelReaders{root: videos, seed: cfg.Seed}
	if r.cache, err = os.MkdirTemp("", "vidscreen-select-"); err != nil {
		closeAll()
		return nil, nil, err
	}
	r.cache = filepath.Join(r.cache, "cache")
	cleanup := func() { os.RemoveAll(filepath.Dir(r.cache)); closeAll() }
	if wantVLM {
		if v == nil || v.VLM == nil {
			cleanup()
			return nil, nil, fmt.Errorf("%w: --models %s: its vlm_reader could not be opened as the audit opens it (an ONNX vlm_reader and an image_text role are needed)", harness.ErrBadInput, dir)
		}
		frames := cfg.Videos.Frames
		if frames <= 0 {
			frames = features.UniformFrames
		}
		inOrder, _ := features.DiagnosticSets(frames)
		// The decode size of the audit's pass, as its config.json says
		// (run.Options.decodeSize: the larger of the image tower's and
		// vlm_reader's, display size with --frame-resize processor).
		size, err := decode.ParseSize(cfg.Videos.Size)
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("%w: the run's config.json decode_size: %v", harness.ErrBadInput, err)
		}
		// The gate's 32-frame test is the run's vlm_reader even where the
		// funnel's 32-frame steps used a smaller screen_reader (Video-Index
		// 5.1 screens 32 frames with Qwen3-VL-2B; 5.2 tests the selection
		// with Qwen3-VL-8B at 32 frames): the gate is the stronger check.
		r.vlm, r.set, r.reader, r.name, r.size, r.dec = true, inOrder, v.VLM, v.VLMName, size, v.Decode
		if want := cfg.Videos.VLMReader; r.name != want {
			cleanup()
			return nil, nil, fmt.Errorf("%w: --models: its vlm_reader is %s, but the run's vlm_reader is %s", harness.ErrBadInput, r.name, want)
		}
	}
	if _, ran := cfg.AttackerVersions[RetrievalReader]; ran && am.Reader != nil && am.ReaderName == cfg.LMReader {
		r.letters = am.Reader // retrieval-reader re-runs with it too
	}
	if wantCaptions {
		if am.Reader == nil {
			cleanup()
			return nil, nil, fmt.Errorf("%w: --models %s: its lm_reader could not be opened as the audit opens it (an ONNX lm_reader is needed for captions-reader)", harness.ErrBadInput, dir)
		}
		if am.ReaderName != cfg.LMReader {
			cleanup()
			return nil, nil, fmt.Errorf("%w: --models: its lm_reader is %s, but the run's captions-reader asked %s", harness.ErrBadInput, am.ReaderName, cfg.LMReader)
		}
		fopt, err := run.CaptionOptions(cfg.Videos, v, videos, r.cache)
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("%w: --models %s: captions-reader: %v", harness.ErrBadInput, dir, err)
		}
		r.captions, r.letters = &fopt, am.Reader
	}
	return r, cleanup, nil
}

// openLetters opens, for the red team's retrieval-reader, the run's
// lm_reader from --models when the run ran retrieval-reader and no
// other reader opened it (nil when --models is not given or the run has no
// retrieval-reader: its verdicts are carried over). Another model than the
// run's is refused. A served lm_reader's replies are kept in out as
// openModelReaders keeps them.
func openLetters(ctx context.Context, dir string, device gpu.Spec, out string, cfg rundir.Config, env run.Env) (attack.LetterReader, func(), error) {
	if _, ran := cfg.AttackerVersions[RetrievalReader]; !ran || dir == "" || cfg.LMReader == "" {
		return nil, func() {}, nil
	}
	am, err := run.OpenModels(ctx, dir, device, 0, false, out, env)
	if err != nil {
		return nil, nil, err
	}
	if am.Reader == nil || am.ReaderName != cfg.LMReader {
		am.Close()
		return nil, nil, fmt.Errorf("%w: --models: its lm_reader is %q, but the run's retrieval-reader asked %s", harness.ErrBadInput, am.ReaderName, cfg.LMReader)
	}
	return am.Reader, func() { am.Close() }, nil
}
