package selection

import (
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/models"
)

// openEmbedder opens the text_embed role of dir and checks that it is the
// model the audit embedded with (its name carries the files' hashes): the
// red team's text attackers must embed the selection as the audit embedded
// the pool.
func openEmbedder(dir string, device gpu.Spec, want string, env run.Env) (textembed.TextEmbedder, func(), error) {
	if dir == "" {
		return nil, nil, fmt.Errorf("%w: the run embedded its texts with %s: pass --models DIR with that text_embed model, so that the red team embeds the selection alike", harness.ErrBadInput, want)
	}
	dev, err := device.One()
	if err != nil {
		return nil, nil, &harness.UsageError{Msg: err.Error()}
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: device, Log: env.Stderr, Getenv: env.Getenv})
	if err != nil {
		return nil, nil, fmt.Errorf("--models: %w", err)
	}
	tm, err := onnxembed.OpenModels(rt, m, dev)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	if tm.Embed.Name() != want {
		tm.Close()
		return nil, nil, fmt.Errorf("%w: --models: its text_embed is %s, but the run embedded with %s", harness.ErrBadInput, tm.Embed.Name(), want)
	}
	return tm.Embed, func() { tm.Close() }, nil
}
