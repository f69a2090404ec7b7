package run

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/asr"
)

// openAuditASR opens the asr role for the transcript attackers (the
// Video-Oasis audio test), when the manifest lists one, into v: ONNX files
// once, on the first device, since a video's audio is a small fraction of
// the feature stage's work (one encoder pass per 30 s of audio), or a
// server's /v1/audio/transcriptions.
func openAuditASR(rt *models.Runtime, m *models.Manifest, dev gpu.Device, out *Models, v *VideoModels, env Env) error {
	spec, ok := m.Roles[models.RoleASR]
	if !ok {
		return nil
	}
	if spec.Served() {
		// A served asr: /v1/audio/transcriptions (vLLM serves it for
		// Whisper models), named in the run by its URL and model.
		s := spec.ServerSettings()
		cfg := asr.Config{Server: s}
		if s.APIKeyEnv != "" {
			if cfg.APIKey = env.Getenv(s.APIKeyEnv); cfg.APIKey == "" {
				return fmt.Errorf("%s: roles.asr: server_api_key_env names %s, which is not set in the environment", filepath.Join(m.Dir, models.ManifestFile), s.APIKeyEnv)
			}
		}
		c, err := asr.New(cfg)
		if err != nil {
			return err
		}
		v.ASR, v.ASRName = c, c.Name()
		return nil
	}
	t, err := rt.OpenTranscriber(m, dev)
	if err != nil {
		return err
	}
	out.closes = append(out.closes, t.Close)
	folder, spec, _ := m.Folder(models.RoleASR)
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
