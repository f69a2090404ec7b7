package main

import (
	"context"
	"fmt"

	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/models"
)

// openAuditASR opens the asr role for the transcript attackers (the
// Video-Oasis audio test), when the manifest lists one, into v: once, on
// the first device, since a video's audio is a small fraction of the
// feature stage's work (one encoder pass per 30 s of audio).
func openAuditASR(rt *models.Runtime, m *models.Manifest, dev models.Device, out *auditModels, v *runs.VideoModels, env *environment) error {
	spec, ok := m.Roles[models.RoleASR]
	if !ok {
		return nil
	}
	if spec.Server != "" {
		fmt.Fprintf(env.stderr, "vidscreen audit: asr is served by %s; audit transcribes with ONNX files only, so the transcript attackers are skipped\n", spec.Server)
		return nil
	}
	t, err := rt.OpenTranscriber(m, dev)
	if err != nil {
		return err
	}
	out.closes = append(out.closes, t.Close)
	folder, spec, _ := m.Folder(models.RoleASR)
	name, err := roleName(models.RoleASR, folder, spec, "encoder_model.onnx", "decoder_model.onnx", "decoder_model_merged.onnx",
		"decoder_with_past_model.onnx", "config.json", "generation_config.json")
	if err != nil {
		return err
	}
	v.ASR, v.ASRName = asrText{t}, name
	return nil
}

// asrText adapts models.Transcriber to runs.Transcriber.
type asrText struct{ t *models.Transcriber }

func (a asrText) Transcribe(ctx context.Context, samples []float32) (string, error) {
	tr, err := a.t.Transcribe(ctx, samples)
	return tr.Text, err
}
