package vidomni

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/served"
)

// verifyByVLM is MethodVLM: the vlm_reader role of opt.Models labels each
// sentence by the letter it favours. The role is its ONNX model or, when
// models.json names a server for it, the served model (servedVerifier),
// as the audit reads either; a served role's frames are decoded at
// served.DecodeShort unless opt.Size says otherwise, and what it was asked
// lands in res.Served even when verification fails.
func verifyByVLM(ctx context.Context, opt VerifyOptions, env Env, frames *FrameSampler, pairs []*Pair, res *VerifyResult) ([]verdictRecord, error) {
	m, err := opt.manifest()
	if err != nil {
		return nil, err
	}
	if res.Verifier == "" {
		res.Verifier = string(models.RoleVLMReader)
	}
	var vlm LetterVLM
	if spec, ok := m.Roles[models.RoleVLMReader]; ok && spec.Served() {
		sv, err := openServedVerifier(m, spec, env)
		if err != nil {
			return nil, err
		}
		if opt.Size == "" {
			frames.Size = decode.Size{Short: served.DecodeShort}
		}
		defer func() { res.Served = sv.stats() }()
		vlm = sv
	} else {
		m, rt, dev, err := opt.runtime(env)
		if err != nil {
			return nil, err
		}
		r, err := rt.OpenVLMReader(m, dev)
		if err != nil {
			return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
		}
		defer r.Close()
		vlm = r
	}
	judged, failed, err := VerifyVLM(ctx, vlm, frames, pairs)
	if err != nil {
		return nil, err
	}
	res.skip(env, failed)
	lines := make([]verdictRecord, len(judged))
	for i, j := range judged {
		lines[i] = verdictRecord{Pair: j.Pair.ID, Verifier: res.Verifier, Labels: j.Labels}
	}
	return lines, nil
}
