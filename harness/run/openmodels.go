package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/vidscreen/vidscreen/harness"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/served"
)

// Models are the models of a models folder an audit runs, each opened on
// every device of the run (OpenModels). Reader, ReaderName and Video are
// what select's red team asks of the run's models again.
type Models struct {
	// embed and confirm are text_embed and dup_confirm on every device (nil
	// when the manifest lacks the role).
	embed, confirm textembed.TextEmbedder
	// Reader is the first lm_reader entry (nil without one); ReaderName
	// names its weights as config.json does.
	Reader     attack.LetterReader
	ReaderName string
	// extra and extraNames are the later lm_reader entries of models.json
	// (ONNX or served), each a
	// further model of the blind test (blind-reader#2, ...), and their
	// weights' names.
	extra      []attack.LetterReader
	extraNames []string
	// Video holds the video levels' models (nil unless they run).
	Video *VideoModels
	// devices shares the run's devices among the roles; its counts say
	// what each device did.
	devices *gpu.Pool
	closes  []func() error
	// rt, devs and towers are the runtime, the run's devices and
	// image_text on each (nil without it), for the GPU frame path
	// (openDeviceFrames).
	rt     *models.Runtime
	devs   []gpu.Device
	towers []*models.ImageText
	// served lists the roles a server serves, for stages.json and the
	// check that each server answered something.
	served []servedReader
}

func (m *Models) Close() error {
	var err error
	for _, c := range m.closes {
		err = errors.Join(err, c())
	}
	return err
}

// OpenModels opens the models of dir once on every device that device
// names, one worker set per device under one gpu.Pool whose per-device
// memory budget is budget (0: 90% of each GPU's free memory, none on the
// CPU): the text encoders (text_embed, and dup_confirm when listed),
// lm_reader and, when video is set, image_text, the captioner, vlm_reader
// and a decoder set per device (NVDEC on that GPU). A role the manifest
// lacks is left out (its attackers are skipped, naming it); a malformed
// manifest, role or file is bad input; a missing ONNX Runtime is a failure
// of the run. A served role's replies are kept in runDir's response store
// (none when runDir is "").
func OpenModels(ctx context.Context, dir string, device gpu.Spec, budget uint64, video bool, runDir string, env Env) (*Models, error) {
	gdevs, runtimeDevice, err := auditDevices(device, env)
	if err != nil {
		return nil, err
	}
	// Several roles run at once on a device (the image tower, the
	// captioner, vlm_reader); the budget, not a worker count, bounds them.
	pool, err := gpu.NewPool(gdevs, gpu.PoolConfig{Workers: poolWorkers, CPUWorkers: poolWorkers, MemoryBudget: budget, CPUMemoryBudget: budget})
	if err != nil {
		return nil, fmt.Errorf("--device: %w", err)
	}
	devs := make([]gpu.Device, len(gdevs))
	for d, g := range gdevs {
		devs[d] = gpu.Device{Kind: g.Kind, Index: g.Index}
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: runtimeDevice, Log: env.Stderr, Getenv: env.Getenv})
	if err != nil {
		return nil, fmt.Errorf("--models: %w", err)
	}
	if err := checkAuditRoles(ctx, dir, runtimeDevice, m, video, env); err != nil {
		return nil, err
	}
	out := &Models{devices: pool, rt: rt, devs: devs}
	store := servedStore(runDir)
	if store != nil {
		out.closes = append(out.closes, store.Close)
	}
	fail := func(err error) (*Models, error) {
		out.Close()
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	has := func(r models.Role) bool { _, ok := m.Roles[r]; return ok }
	// Only lm_reader's and vlm_reader's later entries run (blind-reader#2,
	// centre-frame-reader#2, ...); those of the other roles are parsed and
	// left out, said once each.
	for _, r := range append(slices.Clone(models.Roles), models.OptionalRoles...) {
		if n := len(m.Extra[r]); n > 0 && r != models.RoleLMReader && r != models.RoleVLMReader {
			fmt.Fprintf(env.Stderr, "vidscreen audit: %s lists %d further entries; only lm_reader's and vlm_reader's later entries run (as blind-reader#2, centre-frame-reader#2, ...), so %s's first entry alone is used\n", r, n, r)
		}
	}
	if has(models.RoleTextEmbed) {
		embed := &spread.TextEmbedder{Pool: pool, Work: string(models.RoleTextEmbed)}
		confirm := &spread.TextEmbedder{Pool: pool, Work: string(models.RoleDupConfirm)}
		for _, dev := range devs {
			tm, err := onnxembed.OpenModels(rt, m, dev)
			if err != nil {
				return fail(err)
			}
			out.closes = append(out.closes, tm.Close)
			embed.Encoders = append(embed.Encoders, tm.Embed)
			if tm.Confirm != nil {
				confirm.Encoders = append(confirm.Encoders, tm.Confirm)
			}
		}
		out.embed = embed
		if len(confirm.Encoders) > 0 {
			out.confirm = confirm
		}
	} else {
		fmt.Fprintf(env.Stderr, "vidscreen audit: %s has no text_embed role: item texts are embedded lexically\n", filepath.Join(dir, models.ManifestFile))
	}
	// lm_reader's entries: the first is the pyramid's reader, the later
	// ones further models of the Video-Oasis blind test (blind-reader#2,
	// #3, ... in the list's order), each ONNX files on every device or a
	// server.
	for k, espec := range m.Entries(models.RoleLMReader) {
		var r attack.LetterReader
		var name string
		if espec.Served() {
			cfg, err := servedConfig(m, models.RoleLMReader, k, espec, store, env)
			if err != nil {
				out.Close()
				return nil, err
			}
			l, err := served.NewLetters(cfg)
			if err != nil {
				return fail(err)
			}
			out.served = append(out.served, l)
			r, name = l, served.Name(string(models.RoleLMReader), cfg.Server)
		} else {
			em := m.Entry(models.RoleLMReader, k)
			lr := &spread.LetterReader{Pool: pool, Work: string(models.RoleLMReader)}
			for _, dev := range devs {
				ls, err := rt.OpenLetterScorer(em, dev)
				if err != nil {
					if k > 0 {
						err = fmt.Errorf("lm_reader entry %d: %w", k+1, err)
					}
					return fail(err)
				}
				out.closes = append(out.closes, ls.Close)
				lr.Readers = append(lr.Readers, ls)
			}
			folder, spec, _ := em.Folder(models.RoleLMReader)
			if name, err = models.RoleName(models.RoleLMReader, folder, spec); err != nil {
				return fail(err)
			}
			r = lr
		}
		if k == 0 {
			out.Reader, out.ReaderName = r, name
		} else {
			out.extra, out.extraNames = append(out.extra, r), append(out.extraNames, name)
		}
	}
	if !video {
		return out, nil
	}
	v := &VideoModels{MaxBatch: 32}
	short := 0
	if has(models.RoleImageText) {
		// One image tower per device: the feature stage places each video's
		// frames on one of them (features.Options.Image).
		for _, dev := range devs {
			it, err := rt.OpenImageText(m, dev)
			if err != nil {
				return fail(err)
			}
			out.closes = append(out.closes, it.Close)
			it.MaxBatch = max(it.MaxBatch, v.MaxBatch) // the feature stage sizes the runs itself
			v.ImageText = append(v.ImageText, it)
			out.towers = append(out.towers, it)
		}
		v.Devices = pool
		folder, spec, _ := m.Folder(models.RoleImageText)
		cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json"))
		if err != nil {
			return fail(err)
		}
		if v.Prep, err = imageprep.New(*cfg, imageprep.Options{}); err != nil {
			return fail(err)
		}
		if v.ImageName, err = models.RoleName(models.RoleImageText, folder, spec); err != nil {
			return fail(err)
		}
		short = max(short, inputSide(cfg))
	}
	if spec, ok := m.Roles[models.RoleCaptioner]; ok && spec.Served() {
		cfg, err := servedConfig(m, models.RoleCaptioner, 0, spec, store, env)
		if err != nil {
			out.Close()
			return nil, err
		}
		c, err := served.NewCaptioner(cfg, spec.MaxNewTokens, 0)
		if err != nil {
			return fail(err)
		}
		out.served = append(out.served, c)
		for range devs { // the feature stage asks the captioner of a frame's device
			v.Captioner = append(v.Captioner, c)
		}
		tokens := spec.MaxNewTokens
		if tokens <= 0 {
			tokens = served.DefaultCaptionTokens
		}
		v.CaptionerName = served.Name(string(models.RoleCaptioner), cfg.Server) + fmt.Sprintf(":max_new_tokens=%d", tokens)
	} else if ok {
		for _, dev := range devs {
			c, err := rt.OpenCaptioner(m, dev)
			if err != nil {
				return fail(err)
			}
			out.closes = append(out.closes, c.Close)
			v.Captioner = append(v.Captioner, c)
		}
		folder, spec, _ := m.Folder(models.RoleCaptioner)
		if v.CaptionerName, err = models.RoleName(models.RoleCaptioner, folder, spec); err != nil {
			return fail(err)
		}
		if cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json")); err == nil {
			short = max(short, inputSide(cfg))
		}
	}
	if spec, ok := m.Roles[models.RoleVLMReader]; ok && spec.Server == "" && len(v.ImageText) > 0 {
		vlm := &spread.VLMScorer{Pool: pool, Work: string(models.RoleVLMReader)}
		for _, dev := range devs {
			r, err := rt.OpenVLMReader(m, dev)
			if err != nil {
				return fail(err)
			}
			out.closes = append(out.closes, r.Close)
			vlm.Readers = append(vlm.Readers, r)
		}
		folder, spec, _ := m.Folder(models.RoleVLMReader)
		if v.VLMName, err = models.RoleName(models.RoleVLMReader, folder, spec); err != nil {
			return fail(err)
		}
		// Its input side (the image_text one when it has no
		// preprocessor_config.json) joins the decode size: the one decode
		// pass takes frames at the larger of the two (run.Options).
		v.VLMSize = decode.Size{Short: short}
		if cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json")); err == nil {
			v.VLMSize = decode.Size{Short: inputSide(cfg)}
		}
		v.VLM = vlm
	} else if ok && spec.Served() {
		// A served vlm_reader needs no image_text: the server sizes its
		// images, and without an image tower the decode pass runs for the
		// VLM readers alone (attack.Config.VLMOwnFrames).
		r, name, err := openServedVLM(m, models.RoleVLMReader, spec, store, env)
		if err != nil {
			out.Close()
			return nil, err
		}
		out.served = append(out.served, r)
		// Its frames come from the one decode pass, at a short side from
		// which the served size is shrunk, never enlarged.
		v.VLM, v.VLMName, v.VLMSize = r, name, decode.Size{Short: served.DecodeShort}
	}
	if v.VLM != nil {
		if err := openExtraVLMs(m, rt, devs, pool, store, v, out, env); err != nil {
			out.Close()
			return nil, err
		}
	}
	// screen_reader, the funnel's smaller VLM (Video-Index 5.1), answers
	// its 32-frame steps: full-video-reader's frames in order and
	// shuffled-frames-screen-reader's shuffled ones; without one vlm_reader
	// answers full-video-reader and the funnel's shuffled step is the
	// card's shuffled-frames-reader.
	if spec, ok := m.Roles[models.RoleScreenReader]; ok && spec.Server == "" && v.VLM != nil && len(v.ImageText) == 0 {
		return fail(errors.New("screen_reader is an ONNX model, which needs the image_text role; without one it must be served, as vlm_reader is"))
	} else if ok && spec.Server == "" && v.VLM != nil {
		sr := &spread.VLMScorer{Pool: pool, Work: string(models.RoleScreenReader)}
		for _, dev := range devs {
			r, err := rt.OpenVLMRole(m, models.RoleScreenReader, dev)
			if err != nil {
				return fail(err)
			}
			out.closes = append(out.closes, r.Close)
			sr.Readers = append(sr.Readers, r)
		}
		folder, spec, _ := m.Folder(models.RoleScreenReader)
		if v.ScreenName, err = models.RoleName(models.RoleScreenReader, folder, spec); err != nil {
			return fail(err)
		}
		v.ScreenSize = v.VLMSize
		if cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json")); err == nil {
			v.ScreenSize = decode.Size{Short: inputSide(cfg)}
		}
		v.Screen = sr
	} else if ok && spec.Served() && v.VLM != nil {
		r, name, err := openServedVLM(m, models.RoleScreenReader, spec, store, env)
		if err != nil {
			out.Close()
			return nil, err
		}
		out.served = append(out.served, r)
		v.Screen, v.ScreenName, v.ScreenSize = r, name, decode.Size{Short: served.DecodeShort}
	}
	if err := openAuditASR(rt, m, devs[0], out, v, env); err != nil {
		return fail(err)
	}
	if len(v.ImageText) == 0 && v.VLM == nil {
		v = nil
	} else {
		// Frames are decoded with their short side at the largest input
		// side of the models that read them, so no model upsamples and the
		// decoders never hand over full-size frames.
		v.Size = decode.Size{Short: short}
		// One decoder set per device; on GPUs each decodes on its own
		// device's NVDEC (falling back to the CPU, once said, where a
		// device cannot).
		v.Decode.Sets = len(devs)
		if devs[0].Kind == gpu.CUDA {
			v.Decode.Options.HWAccel = "cuda"
			for _, dev := range devs {
				g := decode.NewGPU(dev.Index)
				out.closes = append(out.closes, func() error { g.Close(); return nil })
				v.Decode.GPUs = append(v.Decode.GPUs, g)
			}
			v.Decode.Notify = func(msg string) { fmt.Fprintln(env.Stderr, "vidscreen audit: "+msg) }
		}
	}
	out.Video = v
	return out, nil
}

// poolWorkers is how many pieces of work may run at once on one device:
// one per role that runs during the feature stage (decode runs outside
// the pool), so that the roles overlap and the memory budget alone holds
// them back.
const poolWorkers = 4

// noteDevices tells rep what each device of pool did, by role, in the
// units of each (frames decoded, embedded and captioned; texts; prompts).
func noteDevices(rep interface{ Note(string, ...any) }, pool *gpu.Pool) {
	for _, u := range pool.Usage() {
		args := []any{"device", u.Device.ID()}
		for _, role := range []string{"decode", string(models.RoleImageText), "image_text_text", string(models.RoleCaptioner), string(models.RoleTextEmbed), string(models.RoleDupConfirm), string(models.RoleLMReader), string(models.RoleVLMReader), string(models.RoleScreenReader)} {
			if n := u.Done[role]; n > 0 {
				args = append(args, role, n)
			}
		}
		rep.Note("device work", args...)
	}
}

// inputSide is the side of the images a preprocessor makes before its
// centre crop: the shortest edge it resizes to, else its larger side.
func inputSide(c *imageprep.Config) int {
	if c.ShortestEdge > 0 {
		return c.ShortestEdge
	}
	return max(c.Height, c.Width, c.CropHeight, c.CropWidth)
}

// auditDevices reads --device: the devices of the run (gpu.Select; with
// cuda on a machine without a usable GPU, the CPU, saying why once on
// stderr) and the device value ONNX Runtime is opened with.
func auditDevices(spec gpu.Spec, env Env) ([]gpu.Device, gpu.Spec, error) {
	inv := gpu.Inventory{}
	if spec.CUDA {
		inv = gpu.Discover(gpu.DiscoverOptions{Getenv: env.Getenv})
	}
	devs, note, err := gpu.Select(spec, inv)
	if err != nil {
		return nil, gpu.Spec{}, &SpecError{"--device: " + err.Error()}
	}
	if note != "" {
		fmt.Fprintf(env.Stderr, "vidscreen audit: %s\n", note)
	}
	if devs[0].Kind != gpu.CUDA {
		return devs, gpu.Spec{}, nil
	}
	ids := make([]int, len(devs))
	for d, g := range devs {
		ids[d] = g.Index
	}
	return devs, gpu.Spec{CUDA: true, Indices: ids}, nil
}
