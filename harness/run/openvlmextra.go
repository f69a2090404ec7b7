package run

import (
	"fmt"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/served"
)

// extraVLMs opens the later vlm_reader entries, in the list's order, into
// v: each a further model of the Video-Oasis centre-frame and
// frame-shuffling tests (centre-frame-reader#2, shuffled-frames-reader#2,
// ...; 003, section 3.2). An ONNX entry is opened once per device, as the
// first is; a served one through its server. Each is named by its files'
// hashes and settings (models.RoleName) or by its served model, so that the
// feature stage keys its scores by entry and two VLMs never share answers.
func (o *opener) extraVLMs(v *VideoModels) error {
	for k, espec := range o.m.Entries(models.RoleVLMReader)[1:] {
		entry := k + 2
		bad := func(err error) error {
			return fmt.Errorf("%w: --models: vlm_reader entry %d: %v", harness.ErrBadInput, entry, err)
		}
		if espec.Served() {
			cfg, err := servedConfig(o.m, models.RoleVLMReader, k+1, espec, o.store, o.env)
			if err != nil {
				return err
			}
			r, err := served.NewVLM(cfg)
			if err != nil {
				return bad(err)
			}
			o.out.served = append(o.out.served, r)
			v.ExtraVLM = append(v.ExtraVLM, r)
			v.ExtraVLMNames = append(v.ExtraVLMNames, served.NameWording(string(models.RoleVLMReader), cfg.Server, cfg.Wording))
			v.ExtraVLMSizes = append(v.ExtraVLMSizes, decode.Size{Short: served.DecodeShort})
			v.servedExtra = append(v.servedExtra, true)
			continue
		}
		if len(v.ImageText) == 0 {
			return fmt.Errorf("%w: --models: vlm_reader entry %d is an ONNX model, which needs the image_text role; without one every vlm_reader entry must be served", harness.ErrBadInput, entry)
		}
		em := o.m.Entry(models.RoleVLMReader, k+1)
		sc, name, err := o.onnxVLM(models.RoleVLMReader, em)
		if err != nil {
			return bad(err)
		}
		v.ExtraVLM = append(v.ExtraVLM, sc)
		v.ExtraVLMNames = append(v.ExtraVLMNames, name)
		v.ExtraVLMSizes = append(v.ExtraVLMSizes, o.inputSize(models.RoleVLMReader, em, v.VLMSize))
		v.servedExtra = append(v.servedExtra, false)
	}
	return nil
}
