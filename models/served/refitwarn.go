package served

import (
	"fmt"
	"strings"
)

// RefitWarning is the terminal warning for a VLM role whose server refused
// prompts as too long for its model (Refitted): how many were asked again
// with every second frame, which means the reader saw fewer frames than the
// run asked for, and how to serve the model so that they fit. "" when no
// prompt was refitted. The audit prints it once per role, at the end of the
// run, beside the role's counts.
func (s StatsSnapshot) RefitWarning() string {
	if s.Refitted == 0 {
		return ""
	}
	msg := fmt.Sprintf("%s (model %s): the server refused %d prompts as too long for the model's context, and each was asked again with every second frame, so the reader saw fewer frames than the run asked for (stages.json: served refitted). ",
		s.Role, s.Model, s.Refitted)
	if isInternVL(s.Model) {
		return msg + internVLFix
	}
	return msg + genericFix
}

// internVLFix: InternVL cuts each image into up to max_dynamic_patch 448-pixel
// tiles plus a thumbnail (12 + 1 in its configs), 256 tokens each, so 32
// frames need about 100k tokens. vLLM's InternVL processor takes
// max_dynamic_patch from --mm-processor-kwargs (vllm/model_executor/models/
// internvl.py, get_image_processor), and its video processor reads each
// frame as one tile. SGLang's InternVL processor tiles with max_num=12
// written in its code (python/sglang/srt/multimodal/processors/internvl.py),
// with no server flag that lowers it.
const internVLFix = `InternVL tiles each frame into up to 13 tiles of 256 tokens (max_dynamic_patch 12 and a thumbnail); serve it with one tile a frame: vllm serve MODEL --mm-processor-kwargs '{"max_dynamic_patch": 1}', or set "server_frames": "video" in models.json where models check says the server accepts video (vLLM's InternVL video processor reads each frame as one tile). SGLang's InternVL processor tiles at max 12 with no flag to lower it: raise --context-length there, or serve the model with vLLM.`

// genericFix is the advice for the other models: a longer context, or
// fewer image tokens a frame.
const genericFix = `Raise the server's context (vllm serve --max-model-len, sglang --context-length), or lower the tokens the model spends on a frame through the server's processor arguments (vLLM's --mm-processor-kwargs), then run again.`

// isInternVL reports whether a served model's name is an InternVL
// (OpenGVLab/InternVL2_5-8B, OpenGVLab/InternVL3-8B-hf, a local path).
func isInternVL(model string) bool {
	return strings.Contains(strings.ToLower(model), "internvl")
}
