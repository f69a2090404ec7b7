package run

import (
	"context"
	"fmt"
	"io"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// checkAuditRoles runs "models check" on the roles of m an audit will use
// (the text encoders, the ONNX lm_reader and, with the video levels,
// image_text, captioner and vlm_reader) before any of them is opened, so that a run
// names every missing file or model input of every role at once instead of
// failing on the first, possibly after hours of decoding. Roles the
// manifest does not list are not checked: their attackers are skipped by
// name.
func checkAuditRoles(ctx context.Context, dir string, device gpu.Spec, m *models.Manifest, video bool, env Env) error {
	want := []models.Role{models.RoleTextEmbed, models.RoleDupConfirm, models.RoleLMReader}
	if video {
		want = append(want, models.RoleImageText, models.RoleCaptioner, models.RoleVLMReader)
	}
	var used []models.Role
	for _, r := range want {
		if spec, ok := m.Roles[r]; ok && !spec.Served() {
			used = append(used, r)
		}
	}
	if len(used) == 0 {
		return nil
	}
	rep, err := models.CheckRoles(ctx, dir, models.RuntimeOptions{Device: device, Log: io.Discard, Getenv: env.Getenv}, used)
	if err == nil {
		return nil
	}
	if rep == nil || ctx.Err() != nil {
		return fmt.Errorf("--models: %w", err)
	}
	return fmt.Errorf("%w: --models: %s", harness.ErrBadInput, rep.Summary(err))
}
