package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// auditModels are the models of a --models directory an audit runs.
type auditModels struct {
	text   *textembed.Models // nil when the manifest has no text_embed
	reader *models.LetterScorer
	// readerName names reader's weights.
	readerName string
	video      *runs.VideoModels // nil unless the video levels run
	closes     []func() error
}

func (m *auditModels) Close() error {
	var err error
	for _, c := range m.closes {
		err = errors.Join(err, c())
	}
	return err
}

// openAuditModels opens the models of dir: the text encoders (text_embed,
// and dup_confirm when listed), lm_reader and vlm_reader on the first
// device of --device and, when video is set, image_text and the captioner
// once on every device (one worker set each, under a gpu.Pool). A role the manifest lacks is left out
// (its attackers are skipped, naming it); a malformed manifest, role or file
// is bad input; a missing ONNX Runtime is a failure of the run.
func openAuditModels(dir, device string, video bool, env *environment) (*auditModels, error) {
	gdevs, runtimeDevice, err := auditDevices(device, env)
	if err != nil {
		return nil, err
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
	out := &auditModels{}
	fail := func(err error) (*auditModels, error) {
		out.Close()
		return nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	has := func(r models.Role) bool { _, ok := m.Roles[r]; return ok }
	if has(models.RoleTextEmbed) {
		if out.text, err = textembed.OpenModels(rt, m, devs[0]); err != nil {
			return fail(err)
		}
		out.closes = append(out.closes, out.text.Close)
	} else {
		fmt.Fprintf(env.stderr, "vidscreen audit: %s has no text_embed role: item texts are embedded lexically\n", filepath.Join(dir, models.ManifestFile))
	}
	if spec, ok := m.Roles[models.RoleLMReader]; ok && spec.Server == "" {
		ls, err := rt.OpenLetterScorer(m, devs[0])
		if err != nil {
			return fail(err)
		}
		out.closes = append(out.closes, ls.Close)
		folder, spec, _ := m.Folder(models.RoleLMReader)
		if out.readerName, err = roleName(models.RoleLMReader, folder, spec, "model.onnx", "decoder_model_merged.onnx", "config.json"); err != nil {
			return fail(err)
		}
		out.reader = ls
	} else if ok {
		fmt.Fprintf(env.stderr, "vidscreen audit: lm_reader is served by %s; audit reads letter scores from ONNX files only, so the model readers are skipped\n", spec.Server)
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
		}
		if v.Devices, err = gpu.NewPool(gdevs, gpu.PoolConfig{}); err != nil {
			return fail(err)
		}
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
	if has(models.RoleCaptioner) {
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
		vlm, err := rt.OpenVLMReader(m, devs[0])
		if err != nil {
			return fail(err)
		}
		out.closes = append(out.closes, vlm.Close)
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
	} else if ok && spec.Server != "" {
		fmt.Fprintf(env.stderr, "vidscreen audit: vlm_reader is served by %s; audit reads letter scores from ONNX files only, so the VLM readers are skipped\n", spec.Server)
	}
	if len(v.ImageText) == 0 {
		v = nil
	} else {
		// Frames are decoded with their short side at the largest input
		// side of the models that read them, so no model upsamples and the
		// decoders never hand over full-size frames.
		v.Size = decode.Size{Short: short}
		if devs[0].CUDA {
			v.Decode.Options.HWAccel = "cuda"
			v.Decode.Options.GPU = decode.NewGPU(devs[0].ID)
			g := v.Decode.Options.GPU
			out.closes = append(out.closes, func() error { g.Close(); return nil })
			v.Decode.Notify = func(msg string) { fmt.Fprintln(env.stderr, "vidscreen audit: "+msg) }
		}
	}
	out.video = v
	return out, nil
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
// its folder's base name and the SHA-256 (first 16 hex digits) of each file
// that decides its outputs, the tokenizer included. Files the folder lacks
// are left out (a role has alternatives, such as the captioner's first-step
// decoder).
func roleName(role models.Role, folder string, spec models.RoleSpec, files ...string) (string, error) {
	tok := spec.Tokenizer
	if tok == "" {
		tok = "tokenizer.json"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "onnx:%s:%s", role, filepath.Base(folder))
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
