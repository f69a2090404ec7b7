package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/models"
)

// fullVideoReader is the model reader the red team re-runs on the released
// option order: the VLM at 32 frames in order (Video-Index 5.2).
const fullVideoReader = "full-video-reader"

// selectReaders re-reads a selection, options in the released order, with
// the VLM the audit's full-video-reader asked (screen_reader where the run
// used one, else vlm_reader), on the run's in-order uniform frames: the
// audit's feature stage (features.ReadVLM) on the models openAuditModels
// opens, so no second decode or model path. Its scores are cached under a
// folder of their own: the run's cache keys hold the items' option order,
// which the release changes, so none of them would match.
type selectReaders struct {
	root, cache string
	set         features.VLMSet
	reader      features.VLMScorer
	name        string
	size        decode.Size
	dec         decode.Pool
	seed        uint64
	// unread counts, over the calls, the items the VLM could not score.
	unread, items int
}

func (r *selectReaders) Attackers() []string { return []string{fullVideoReader} }

func (r *selectReaders) Visual(ctx context.Context, items []*harness.Item) ([]*attack.Visual, error) {
	scores, err := features.ReadVLM(ctx, items, features.VLMOptions{Root: r.root, CacheDir: r.cache,
		Sets: []features.VLMSet{r.set}, Reader: r.reader, ReaderName: r.name, Size: r.size, Decode: r.dec, Seed: r.seed})
	if err != nil {
		return nil, err
	}
	out := make([]*attack.Visual, len(items))
	for i := range items {
		v := &attack.Visual{}
		if sc, ok := scores[i][r.set.Name]; ok {
			v.VLM = map[string][]float64{attack.VLMInOrder: sc}
		} else {
			r.unread++ // no scores: the reader abstains (a seeded guess, counted at chance)
		}
		out[i] = v
	}
	r.items += len(items)
	return out, nil
}

// openSelectReaders opens, for the red team, the VLM that answered the run's
// full-video-reader, when --models names a folder with a vlm_reader and
// --videos the videos; nil (the model readers' verdicts carried over) when
// either is missing or the run has no full-video-reader. A VLM that is not
// the run's is refused: its answers would not be the ones the screen judged.
func openSelectReaders(dir, videos, device string, cfg runs.Config, env *environment) (*selectReaders, func(), error) {
	if dir == "" || videos == "" || cfg.Videos == nil || cfg.Videos.VLMReader == "" {
		return nil, func() {}, nil
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	if _, ok := m.Roles[models.RoleVLMReader]; !ok {
		return nil, func() {}, nil
	}
	am, err := openAuditModels(dir, device, 0, true, env)
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() { am.Close() }
	v := am.video
	if v == nil || v.VLM == nil {
		closeAll()
		return nil, nil, fmt.Errorf("%w: --models %s: its vlm_reader could not be opened as the audit opens it (an ONNX vlm_reader and an image_text role are needed)", errBadInput, dir)
	}
	frames := cfg.Videos.Frames
	if frames <= 0 {
		frames = features.UniformFrames
	}
	inOrder, _ := features.DiagnosticSets(frames)
	// The decode size of the audit's pass (run.Options.decodeSize): the
	// larger of the image tower's and vlm_reader's input sides.
	size := v.Size
	size.Short = max(size.Short, v.VLMSize.Short)
	r := &selectReaders{root: videos, set: inOrder, reader: v.VLM, name: v.VLMName, size: size, dec: v.Decode, seed: cfg.Seed}
	want, role := cfg.Videos.VLMReader, models.RoleVLMReader
	if cfg.Videos.ScreenReader != "" {
		want, role = cfg.Videos.ScreenReader, models.RoleScreenReader
		if v.Screen == nil {
			closeAll()
			return nil, nil, fmt.Errorf("%w: the run's full-video-reader asked screen_reader %s: pass --models DIR with that screen_reader", errBadInput, want)
		}
		r.reader, r.name = v.Screen, v.ScreenName
		r.size.Short = max(r.size.Short, v.ScreenSize.Short)
	}
	if r.name != want {
		closeAll()
		return nil, nil, fmt.Errorf("%w: --models: its %s is %s, but the run's full-video-reader asked %s", errBadInput, role, r.name, want)
	}
	if r.cache, err = os.MkdirTemp("", "vidscreen-select-"); err != nil {
		closeAll()
		return nil, nil, err
	}
	r.cache = filepath.Join(r.cache, "cache")
	return r, func() { os.RemoveAll(filepath.Dir(r.cache)); closeAll() }, nil
}
