package models

import (
	"context"
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// decoderTokens reads the start and end tokens of an encoder-decoder
// export (captioner, asr) from its config.json: decoder_start_token_id or
// bos_token_id, and eos_token_id.
func decoderTokens(configPath string) (start, eos int, err error) {
	cfg, err := readModelConfig(configPath)
	if err != nil {
		return 0, 0, err
	}
	start, ok := cfg.tokenID("decoder_start_token_id", "bos_token_id")
	if !ok {
		return 0, 0, fmt.Errorf("%s: no decoder_start_token_id or bos_token_id", configPath)
	}
	eos, ok = cfg.tokenID("eos_token_id")
	if !ok {
		return 0, 0, fmt.Errorf("%s: no eos_token_id", configPath)
	}
	return start, eos, nil
}

// encode runs an encoder-decoder's encoder on in, fed as its input name,
// and returns its outputs (the caller destroys them, with destroyMap) and
// among them last_hidden_state, which the decoder reads at every step.
func encode(ctx context.Context, enc *Session, input string, in ort.Value) (map[string]ort.Value, ort.Value, error) {
	out, err := enc.Run(ctx, map[string]ort.Value{input: in})
	if err != nil {
		return nil, nil, err
	}
	hidden, ok := out["last_hidden_state"]
	if !ok {
		destroyMap(out)
		return nil, nil, fmt.Errorf("%s: no last_hidden_state", enc.Path())
	}
	return out, hidden, nil
}
