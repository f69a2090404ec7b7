package run

import (
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/served"
)

// openExtraVLMs opens the later vlm_reader entries of m, in the list's
// order, into v: each a further model of the Video-Oasis centre-frame and
// frame-shuffling tests (centre-frame-reader#2, shuffled-frames-reader#2,
// ...; 003, section 3.2). An ONNX entry is opened once per device, as the
// first is; a served one through its server. Each is named by its files'
// hashes and settings (models.RoleName) or by its served model, so that the
// feature stage keys its scores by entry and two VLMs never share answers.
func openExtraVLMs(m *models.Manifest, rt *models.Runtime, devs []gpu.Device, pool *gpu.Pool, store *served.Store, v *VideoModels, out *Models, env Env) error {
	for k, espec := range m.Entries(models.RoleVLMReader)[1:] {
		entry := k + 2
		if espec.Served() {
			cfg, err := servedConfig(m, models.RoleVLMReader, k+1, espec, store, env)
			if err != nil {
				return err
			}
			r, err := served.NewVLM(cfg)
			if err != nil {
				return fmt.Errorf("%w: --models: vlm_reader entry %d: %v", harness.ErrBadInput, entry, err)
			}
			out.served = append(out.served, r)
			v.ExtraVLM = append(v.ExtraVLM, r)
			v.ExtraVLMNames = append(v.ExtraVLMNames, served.Name(string(models.RoleVLMReader), cfg.Server))
			v.ExtraVLMSizes = append(v.ExtraVLMSizes, decode.Size{Short: served.DecodeShort})
			continue
		}
		if len(v.ImageText) == 0 {
			return fmt.Errorf("%w: --models: vlm_reader entry %d is an ONNX model, which needs the image_text role; without one every vlm_reader entry must be served", harness.ErrBadInput, entry)
		}
		em := m.Entry(models.RoleVLMReader, k+1)
		sc := &spread.VLMScorer{Pool: pool, Work: string(models.RoleVLMReader)}
		for _, dev := range devs {
			r, err := rt.OpenVLMReader(em, dev)
			if err != nil {
				return fmt.Errorf("%w: --models: vlm_reader entry %d: %v", harness.ErrBadInput, entry, err)
			}
			out.closes = append(out.closes, r.Close)
			sc.Readers = append(sc.Readers, r)
		}
		folder, spec, _ := em.Folder(models.RoleVLMReader)
		name, err := models.RoleName(models.RoleVLMReader, folder, spec)
		if err != nil {
			return fmt.Errorf("%w: --models: vlm_reader entry %d: %v", harness.ErrBadInput, entry, err)
		}
		size := v.VLMSize
		if cfg, err := imageprep.ReadConfig(filepath.Join(folder, "preprocessor_config.json")); err == nil {
			size = decode.Size{Short: inputSide(cfg)}
		}
		v.ExtraVLM = append(v.ExtraVLM, sc)
		v.ExtraVLMNames = append(v.ExtraVLMNames, name)
		v.ExtraVLMSizes = append(v.ExtraVLMSizes, size)
	}
	return nil
}
