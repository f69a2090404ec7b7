package run

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/served"
)

// imageText opens one image tower per device into v (the feature stage
// places each video's frames on one of them, features.Options.Image), its
// preprocessor and its name, and returns its input side (0 without the
// role).
func (o *opener) imageText(v *VideoModels) (int, error) {
	if !o.has(models.RoleImageText) {
		return 0, nil
	}
	towers, err := onDevices(o, func(dev gpu.Device) (*models.ImageText, error) { return o.rt.OpenImageText(o.m, dev) })
	if err != nil {
		return 0, o.bad(err)
	}
	for _, it := range towers {
		it.MaxBatch = max(it.MaxBatch, v.MaxBatch) // the feature stage sizes the runs itself
		v.ImageText = append(v.ImageText, it)
		o.out.towers = append(o.out.towers, it)
	}
	v.Devices = o.pool
	folder, spec, _ := o.m.Folder(models.RoleImageText)
	cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json"))
	if err != nil {
		return 0, o.bad(err)
	}
	if v.Prep, err = imageprep.New(*cfg, imageprep.Options{}); err != nil {
		return 0, o.bad(err)
	}
	if v.ImageName, err = models.RoleName(models.RoleImageText, folder, spec); err != nil {
		return 0, o.bad(err)
	}
	return inputSide(cfg), nil
}

// captioner opens the captioner into v, served or once per device (the
// feature stage asks the captioner of a frame's device), and returns the
// decode side short raised to the ONNX captioner's input side.
func (o *opener) captioner(v *VideoModels, short int) (int, error) {
	spec, ok := o.m.Roles[models.RoleCaptioner]
	if !ok {
		return short, nil
	}
	if spec.Served() {
		cfg, err := servedConfig(o.m, models.RoleCaptioner, 0, spec, o.store, o.env)
		if err != nil {
			return 0, err
		}
		c, err := served.NewCaptioner(cfg, spec.MaxNewTokens, 0)
		if err != nil {
			return 0, o.bad(err)
		}
		o.out.served = append(o.out.served, c)
		for range o.devs {
			v.Captioner = append(v.Captioner, c)
		}
		tokens := spec.MaxNewTokens
		if tokens <= 0 {
			tokens = served.DefaultCaptionTokens
		}
		v.CaptionerName = served.Name(string(models.RoleCaptioner), cfg.Server) + fmt.Sprintf(":max_new_tokens=%d", tokens)
		return short, nil
	}
	caps, err := onDevices(o, func(dev gpu.Device) (*models.Captioner, error) { return o.rt.OpenCaptioner(o.m, dev) })
	if err != nil {
		return 0, o.bad(err)
	}
	for _, c := range caps {
		v.Captioner = append(v.Captioner, c)
	}
	folder, spec, _ := o.m.Folder(models.RoleCaptioner)
	if v.CaptionerName, err = models.RoleName(models.RoleCaptioner, folder, spec); err != nil {
		return 0, o.bad(err)
	}
	if cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json")); err == nil {
		short = max(short, inputSide(cfg))
	}
	return short, nil
}

// vlmReader opens vlm_reader's first entry into v: ONNX once per device,
// which needs image_text, or served, which needs none (the server sizes
// its images, and without an image tower the decode pass runs for the VLM
// readers alone: attack.Config.VLMOwnFrames). short is the decode side so
// far, the ONNX reader's own when it has no preprocessor_config.json.
func (o *opener) vlmReader(v *VideoModels, short int) error {
	spec, ok := o.m.Roles[models.RoleVLMReader]
	switch {
	case ok && !spec.Served() && len(v.ImageText) > 0:
		sc, name, err := o.onnxVLM(models.RoleVLMReader, o.m)
		if err != nil {
			return o.bad(err)
		}
		// Its input side (the image_text one when it has no
		// preprocessor_config.json) joins the decode size: the one decode
		// pass takes frames at the larger of the two (run.Options).
		v.VLM, v.VLMName, v.VLMSize = sc, name, o.inputSize(models.RoleVLMReader, o.m, decode.Size{Short: short})
	case ok && spec.Served():
		r, name, err := openServedVLM(o.m, models.RoleVLMReader, spec, o.store, o.env)
		if err != nil {
			return err
		}
		o.out.served = append(o.out.served, r)
		// Its frames come from the one decode pass, at a short side from
		// which the served size is shrunk, never enlarged.
		v.VLM, v.VLMName, v.VLMSize, v.servedVLM = r, name, decode.Size{Short: served.DecodeShort}, true
	}
	return nil
}

// screenReader opens screen_reader, the funnel's smaller VLM (Video-Index
// 5.1), which answers its 32-frame steps: full-video-reader's frames in
// order and shuffled-frames-screen-reader's shuffled ones; without one
// vlm_reader answers full-video-reader and the funnel's shuffled step is
// the card's shuffled-frames-reader. It runs only beside a vlm_reader.
func (o *opener) screenReader(v *VideoModels) error {
	spec, ok := o.m.Roles[models.RoleScreenReader]
	if !ok || v.VLM == nil {
		return nil
	}
	switch {
	case !spec.Served() && len(v.ImageText) == 0:
		return o.bad(errors.New("screen_reader is an ONNX model, which needs the image_text role; without one it must be served, as vlm_reader is"))
	case !spec.Served():
		sc, name, err := o.onnxVLM(models.RoleScreenReader, o.m)
		if err != nil {
			return o.bad(err)
		}
		v.Screen, v.ScreenName, v.ScreenSize = sc, name, o.inputSize(models.RoleScreenReader, o.m, v.VLMSize)
	case spec.Served():
		r, name, err := openServedVLM(o.m, models.RoleScreenReader, spec, o.store, o.env)
		if err != nil {
			return err
		}
		o.out.served = append(o.out.served, r)
		v.Screen, v.ScreenName, v.ScreenSize, v.servedScreen = r, name, decode.Size{Short: served.DecodeShort}, true
	}
	return nil
}

// onnxVLM opens a VLM role of m (vlm_reader or screen_reader; m may be one
// entry's manifest) once per device behind one spread scorer, and names it.
// Its errors are the model's own, for the caller to place.
func (o *opener) onnxVLM(role models.Role, m *models.Manifest) (*spread.VLMScorer, string, error) {
	readers, err := onDevices(o, func(dev gpu.Device) (*models.VLMReader, error) { return o.rt.OpenVLMRole(m, role, dev) })
	if err != nil {
		return nil, "", err
	}
	sc := &spread.VLMScorer{Pool: o.pool, Work: string(role)}
	for _, r := range readers {
		sc.Readers = append(sc.Readers, r)
	}
	folder, spec, _ := m.Folder(role)
	name, err := models.RoleName(role, folder, spec)
	if err != nil {
		return nil, "", err
	}
	w, err := letters.LoadWording(m.Dir)
	if err != nil {
		return nil, "", err
	}
	return sc, name + w.Tag(), nil
}

// inputSize is the decode size a role of m reads: its preprocessor's input
// side, else def.
func (o *opener) inputSize(role models.Role, m *models.Manifest, def decode.Size) decode.Size {
	folder, _, _ := m.Folder(role)
	if cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json")); err == nil {
		return decode.Size{Short: inputSide(cfg)}
	}
	return def
}

// decoders sets v's decode pass: frames at the largest input side short of
// the models that read them, so that no model upsamples (with
// --frame-resize processor, the default, Models.apply then asks for display
// size instead: resizeInProcessor), and one decoder set per device; on
// GPUs each decodes on its own device's NVDEC (falling back to the CPU,
// once said, where a device cannot).
func (o *opener) decoders(v *VideoModels, short int) {
	v.Size = decode.Size{Short: short}
	v.Decode.Sets = len(o.devs)
	if o.devs[0].Kind != gpu.CUDA {
		return
	}
	v.Decode.Options.HWAccel = "cuda"
	for _, dev := range o.devs {
		g := decode.NewGPU(dev.Index)
		o.out.closes = append(o.out.closes, func() error { g.Close(); return nil })
		v.Decode.GPUs = append(v.Decode.GPUs, g)
	}
	v.Decode.Notify = func(msg string) { fmt.Fprintln(o.env.Stderr, "vidscreen audit: "+msg) }
}
