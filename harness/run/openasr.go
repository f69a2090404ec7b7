package run

import (
	"context"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/asr"
	"github.com/vidscreen/vidscreen/models/served"
)

// asr opens the asr role for the transcript attackers (the
// Video-Oasis audio test), when the manifest lists one, into v: ONNX files
// once, on the first device, since a video's audio is a small fraction of
// the feature stage's work (one encoder pass per 30 s of audio), or a
// server's /v1/audio/transcriptions.
func (o *opener) asr(v *VideoModels) error {
	spec, ok := o.m.Roles[models.RoleASR]
	if !ok {
		return nil
	}
	if spec.Served() {
		// A served asr: /v1/audio/transcriptions (vLLM serves it for
		// Whisper models), named in the run by its URL and model.
		sc, err := served.ConfigFor(o.m, models.RoleASR, 0, spec, o.env.Getenv)
		if err != nil {
			return err
		}
		c, err := asr.New(asr.Config{Server: sc.Server, APIKey: sc.APIKey, Language: spec.Language})
		if err != nil {
			return err
		}
		v.ASR, v.ASRName = c, c.Name()
		return nil
	}
	t, err := o.rt.OpenTranscriber(o.m, o.devs[0])
	if err != nil {
		// A generation or feature config the role cannot honour, named
		// by file and field, is the models folder's fault.
		return o.bad(err)
	}
	o.out.closes = append(o.out.closes, t.Close)
	folder, spec, _ := o.m.Folder(models.RoleASR)
	name, err := models.RoleName(models.RoleASR, folder, spec)
	if err != nil {
		return err
	}
	v.ASR, v.ASRName = asrText{t}, name
	return nil
}

// asrText adapts models.Transcriber to Transcriber.
type asrText struct{ t *models.Transcriber }

func (a asrText) Transcribe(ctx context.Context, samples []float32) (string, error) {
	tr, err := a.t.Transcribe(ctx, samples)
	return tr.Text, err
}
