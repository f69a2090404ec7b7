package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/attack"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/served"
)

// auditModels are the models of a --models directory an audit runs.
type auditModels struct {
	// embed and confirm are text_embed and dup_confirm on every device (nil
	// when the manifest lacks the role).
	embed, confirm textembed.TextEmbedder
	reader         attack.LetterReader
	// readerName names reader's weights.
	readerName string
	// extra and extraNames are the later lm_reader entries of models.json
	// (ONNX or served), each a
	// further model of the blind test (blind-reader#2, ...), and their
	// weights' names.
	extra      []attack.LetterReader
	extraNames []string
	video      *runs.VideoModels // nil unless the video levels run
	// devices shares the run's devices among the roles; its counts say
	// what each device did.
	devices *gpu.Pool
	closes  []func() error
	// rt, devs and towers are the runtime, the run's devices and
	// image_text on each (nil without it), for the GPU frame path
	// (openDeviceFrames).
	rt     *models.Runtime
	devs   []models.Device
	towers []*models.ImageText
	// served lists the roles a server serves, for stages.json and the
	// check that each server answered something.
	served []servedReader
}

func (m *auditModels) Close() error {
	var err error
	for _, c := range m.closes {
		err = errors.Join(err, c())
	}
	return err
}

// openAuditModels opens the models of dir once on every device of
// --device, one worker set per device under one gpu.Pool whose per-device
// memory budget is budget (0: 90% of each GPU's free memory, none on the
// CPU): the text encoders (text_embed, and dup_confirm when listed),
// lm_reader and, when video is set, image_text, the captioner, vlm_reader
// and a decoder set per device (NVDEC on that GPU). A role the manifest
// lacks is left out (its attackers are skipped, naming it); a malformed
// manifest, role or file is bad input; a missing ONNX Runtime is a failure
// of the run. A served role's replies are kept in runDir's response store
// (none when runDir is "").
func openAuditModels(dir, device string, budget uint64, video bool, runDir string, env *environment) (*auditModels, error) {
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
	devs := make([]models.Device, len(gdevs))
	for d, g := range gdevs {
		devs[d] = models.Device{CUDA: g.Kind == gpu.CUDA, ID: g.Index}
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: runtimeDevice, Log: env.stderr, Getenv: env.getenv})
	if err != nil {
		return nil, fmt.Errorf("--models: %w", err)
	}
	if err := checkAuditRoles(context.Background(), dir, runtimeDevice, m, video, env); err != nil {
		return nil, err
	}
	out := &auditModels{devices: pool, rt: rt, devs: devs}
	store := servedStore(runDir)
	if store != nil {
		out.closes = append(out.closes, store.Close)
	}
	fail := func(err error) (*auditModels, error) {
		out.Close()
		return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	has := func(r models.Role) bool { _, ok := m.Roles[r]; return ok }
	// Only lm_reader's and vlm_reader's later entries run (blind-reader#2,
	// centre-frame-reader#2, ...); those of the other roles are parsed and
	// left out, said once each.
	for _, r := range append(slices.Clone(models.Roles), models.OptionalRoles...) {
		if n := len(m.Extra[r]); n > 0 && r != models.RoleLMReader && r != models.RoleVLMReader {
			fmt.Fprintf(env.stderr, "vidscreen audit: %s lists %d further entries; only lm_reader's and vlm_reader's later entries run (as blind-reader#2, centre-frame-reader#2, ...), so %s's first entry alone is used\n", r, n, r)
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
		fmt.Fprintf(env.stderr, "vidscreen audit: %s has no text_embed role: item texts are embedded lexically\n", filepath.Join(dir, models.ManifestFile))
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
			if name, err = roleName(models.RoleLMReader, folder, spec, "model.onnx", "decoder_model_merged.onnx", "config.json"); err != nil {
				return fail(err)
			}
			r = lr
		}
		if k == 0 {
			out.reader, out.readerName = r, name
		} else {
			out.extra, out.extraNames = append(out.extra, r), append(out.extraNames, name)
		}
	}
	if !video {
		return out, nil
	}
	v := &runs.VideoModels{MaxBatch: 32}
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
		if v.ImageName, err = roleName(models.RoleImageText, folder, spec, "text_model.onnx", "vision_model.onnx", "preprocessor_config.json"); err != nil {
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
		files := []string{"encoder_model.onnx", "decoder_model.onnx", "decoder_model_merged.onnx", "decoder_with_past_model.onnx", "preprocessor_config.json", "config.json"}
		if v.CaptionerName, err = roleName(models.RoleCaptioner, folder, spec, files...); err != nil {
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
		if v.VLMName, err = roleName(models.RoleVLMReader, folder, spec, "vision_encoder.onnx", "embed_tokens.onnx", "decoder_model_merged.onnx", "decoder_model.onnx", "preprocessor_config.json", "config.json"); err != nil {
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
		if v.ScreenName, err = roleName(models.RoleScreenReader, folder, spec, "vision_encoder.onnx", "embed_tokens.onnx", "decoder_model_merged.onnx", "decoder_model.onnx", "preprocessor_config.json", "config.json"); err != nil {
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
		if devs[0].CUDA {
			v.Decode.Options.HWAccel = "cuda"
			for _, dev := range devs {
				g := decode.NewGPU(dev.ID)
				out.closes = append(out.closes, func() error { g.Close(); return nil })
				v.Decode.GPUs = append(v.Decode.GPUs, g)
			}
			v.Decode.Notify = func(msg string) { fmt.Fprintln(env.stderr, "vidscreen audit: "+msg) }
		}
	}
	out.video = v
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

// roleName names a role's weights for cache keys and config.json: the role,
// its folder's base name, the settings models.json gives it (roleSettings)
// and the SHA-256 (first 16 hex digits) of each file that decides its
// outputs, the tokenizer included. Files the folder lacks are left out (a
// role has alternatives, such as the captioner's first-step decoder).
func roleName(role models.Role, folder string, spec models.RoleSpec, files ...string) (string, error) {
	tok := spec.Tokenizer
	if tok == "" {
		tok = "tokenizer.json"
	}
	settings, err := roleSettings(spec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "onnx:%s:%s", role, filepath.Base(folder))
	if settings != "" {
		b.WriteString(":" + settings)
	}
	for _, f := range append(files, tok) {
		path := filepath.Join(folder, f)
		fh, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", path, err)
		}
		fmt.Fprintf(&b, ":%s=sha256:%s", f, hex.EncodeToString(h.Sum(nil))[:16])
	}
	return b.String(), nil
}

// roleSettings is the part of a role's models.json entry that changes its
// answers ("" when the entry sets none): every field but where the files
// are (dir, and tokenizer, whose file roleName hashes) and the server
// fields (served.Name names a served role; where it is and how the client
// is tuned change no answer), as key=value pairs in key
// order, each value in JSON ("logit_scale=50,max_new_tokens=64"). A
// captioner's max_new_tokens or image_text's logit_scale changes every
// caption or frame score, so it must change config.json and the cache keys
// as a changed weight file does (issue 24, 2.3). The fields are read from
// the manifest's own encoding, so a setting added to models.RoleSpec later
// is covered.
func roleSettings(spec models.RoleSpec) (string, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("role settings: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("role settings: %w", err)
	}
	for k := range m {
		if k == "dir" || k == "tokenizer" || strings.HasPrefix(k, "server") {
			delete(m, k)
		}
	}
	for k, v := range m {
		if v == nil || v == false || v == float64(0) || v == "" {
			delete(m, k)
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		v, err := json.Marshal(m[k])
		if err != nil {
			return "", fmt.Errorf("role settings: %w", err)
		}
		parts[i] = k + "=" + string(v)
	}
	return strings.Join(parts, ","), nil
}

// auditDevices reads --device: the devices of the run (gpu.Select; with
// cuda on a machine without a usable GPU, the CPU, saying why once on
// stderr) and the device value ONNX Runtime is opened with.
func auditDevices(device string, env *environment) ([]gpu.Device, string, error) {
	spec, err := gpu.ParseSpec(device)
	if err != nil {
		return nil, "", &usageError{"--device: " + err.Error()}
	}
	inv := gpu.Inventory{}
	if spec.CUDA {
		inv = gpu.Discover(gpu.DiscoverOptions{Getenv: env.getenv})
	}
	devs, note, err := gpu.Select(spec, inv)
	if err != nil {
		return nil, "", &usageError{"--device: " + err.Error()}
	}
	if note != "" {
		fmt.Fprintf(env.stderr, "vidscreen audit: %s\n", note)
	}
	if devs[0].Kind != gpu.CUDA {
		return devs, "cpu", nil
	}
	ids := make([]string, len(devs))
	for d, g := range devs {
		ids[d] = strconv.Itoa(g.Index)
	}
	return devs, "cuda:" + strings.Join(ids, ","), nil
}
