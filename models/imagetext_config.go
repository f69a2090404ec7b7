package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// defaultSiglipMaxLen is SigLIP's text length: its text tower has 64
// positions (text_config.max_position_embeddings of google/siglip-* and
// google/siglip2-*), and Siglip2Processor pads and truncates to 64.
const defaultSiglipMaxLen = 64

// folderConfig is what image_text reads of a folder's config.json and
// tokenizer_config.json; both files are optional.
type folderConfig struct {
	modelType string // config.json model_type
	// textPositions is text_config.max_position_embeddings (0: absent);
	// textPad text_config.pad_token_id (-1: absent).
	textPositions, textPad int
	// From tokenizer_config.json: padding_side ("" absent), pad_token,
	// tokenizer_class.
	paddingSide, padToken, tokenizerClass string
	// doLowerCase is tokenizer_config.json's do_lower_case (nil: absent).
	doLowerCase *bool
}

// siglip reports whether the folder holds a SigLIP or SigLIP2 model, by
// the test transformers' zero-shot-image-classification pipeline makes
// ("siglip" in model_type) before it pads to max_length 64 and scores by
// sigmoid.
func (c folderConfig) siglip() bool { return strings.Contains(c.modelType, "siglip") }

// lowercases reports whether the model's own tokenizer lowercases before
// its tokenizer.json's normalizer would: SigLIP2's (transformers'
// Siglip2Tokenizer puts Lowercase before Gemma's normalizer), and SigLIP's,
// whose slow SiglipTokenizer lowercases when do_lower_case is set (its
// default). Lowercasing a text a file already lowercases changes nothing.
func (c folderConfig) lowercases() bool {
	switch {
	case c.modelType == "siglip2" || c.tokenizerClass == "Siglip2Tokenizer":
		return true
	case c.modelType == "siglip" && c.doLowerCase != nil:
		return *c.doLowerCase
	case c.modelType == "siglip":
		return c.tokenizerClass == "SiglipTokenizer"
	}
	return false
}

// readFolderConfig reads dir's config.json and tokenizer_config.json. A
// field of the wrong type is an error naming the file and the field.
func readFolderConfig(dir string) (folderConfig, error) {
	c := folderConfig{textPad: -1}
	var cfg struct {
		ModelType  *string `json:"model_type"`
		TextConfig *struct {
			MaxPositions *int `json:"max_position_embeddings"`
			PadTokenID   *int `json:"pad_token_id"`
		} `json:"text_config"`
	}
	if err := readOptionalJSON(filepath.Join(dir, "config.json"), &cfg); err != nil {
		return c, err
	}
	if cfg.ModelType != nil {
		c.modelType = *cfg.ModelType
	}
	if tc := cfg.TextConfig; tc != nil {
		if tc.MaxPositions != nil {
			c.textPositions = *tc.MaxPositions
		}
		if tc.PadTokenID != nil {
			c.textPad = *tc.PadTokenID
		}
	}
	var tcfg struct {
		PaddingSide    *string         `json:"padding_side"`
		PadToken       json.RawMessage `json:"pad_token"`
		TokenizerClass *string         `json:"tokenizer_class"`
		DoLowerCase    *bool           `json:"do_lower_case"`
	}
	path := filepath.Join(dir, "tokenizer_config.json")
	if err := readOptionalJSON(path, &tcfg); err != nil {
		return c, err
	}
	if tcfg.PaddingSide != nil {
		c.paddingSide = *tcfg.PaddingSide
		if c.paddingSide != "left" && c.paddingSide != "right" {
			return c, fmt.Errorf("%s: padding_side: %q is not left or right", path, c.paddingSide)
		}
	}
	if tcfg.TokenizerClass != nil {
		c.tokenizerClass = *tcfg.TokenizerClass
	}
	c.doLowerCase = tcfg.DoLowerCase
	if len(tcfg.PadToken) > 0 && !bytes.Equal(tcfg.PadToken, []byte("null")) {
		// A string, or an AddedToken object {"content": ...}.
		var s string
		var obj struct {
			Content string `json:"content"`
		}
		switch {
		case json.Unmarshal(tcfg.PadToken, &s) == nil:
			c.padToken = s
		case json.Unmarshal(tcfg.PadToken, &obj) == nil && obj.Content != "":
			c.padToken = obj.Content
		default:
			return c, fmt.Errorf("%s: pad_token: want a string or an object with content, got %s", path, tcfg.PadToken)
		}
	}
	return c, nil
}

// readOptionalJSON decodes path into v; a missing file leaves v as it is.
// Unknown fields are allowed (these files carry many the loader does not
// need), but a known one of the wrong type is an error naming it.
func readOptionalJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return jsonError(path, data, err, "")
	}
	return nil
}

// imageTextSpec completes image_text's manifest entry with what the folder
// says, so that texts reach the text tower as the model's own processor
// makes them. Settings the manifest gives win. Otherwise:
//
//   - padding to a fixed length: the tokenizer file's padding when it is
//     Fixed (its length, pad id and direction), else for a SigLIP model
//     (config.json model_type siglip or siglip2, whose text tower pools the
//     last position and takes no attention mask) max_length =
//     text_config.max_position_embeddings (64) with the pad token of
//     tokenizer_config.json (or text_config.pad_token_id);
//   - the side: the tokenizer file's padding direction, else
//     tokenizer_config.json's padding_side, else right;
//   - max_length without padding: the tokenizer file's truncation;
//   - lowercase for SigLIP2 and SigLIP as their tokenizers do
//     (folderConfig.lowercases);
//   - zero_shot sigmoid for SigLIP models, which then need the trained
//     logit_scale and logit_bias in the manifest (they are weights of the
//     checkpoint, in no config file).
//
// tok, when it is LoadTokenizer's, is set to lowercase and to truncate to
// max_length as HF's tokenizer does (keeping its special tokens).
func imageTextSpec(manifest, dir string, spec RoleSpec, tok Tokenizer) (RoleSpec, error) {
	fc, err := readFolderConfig(dir)
	if err != nil {
		return spec, err
	}
	h, _ := tok.(*hfTokenizer)
	var filePad *tokenizer.Padding
	var fileTrunc *tokenizer.Truncation
	if h != nil {
		filePad, fileTrunc = h.pad, h.trunc
	}
	field := func(f string) string { return fmt.Sprintf("%s: roles.%s.%s", manifest, RoleImageText, f) }
	if !spec.PadToMaxLength {
		switch {
		case filePad != nil && filePad.Length > 0:
			spec.PadToMaxLength, spec.PadID = true, filePad.PadID
			if spec.MaxLength == 0 {
				spec.MaxLength = filePad.Length
			}
		case fc.siglip():
			spec.PadToMaxLength = true
			if spec.MaxLength == 0 {
				spec.MaxLength = defaultSiglipMaxLen
				if fc.textPositions > 0 {
					spec.MaxLength = fc.textPositions
				}
			}
			id, ok := -1, false
			if fc.padToken != "" && tok != nil {
				id, ok = tok.TokenID(fc.padToken)
				if !ok {
					return spec, fmt.Errorf("%s: pad_token %q is not in the tokenizer's vocabulary", filepath.Join(dir, "tokenizer_config.json"), fc.padToken)
				}
			}
			if !ok && fc.textPad >= 0 {
				id, ok = fc.textPad, true
			}
			if !ok {
				return spec, fmt.Errorf("%s: a %s model pads its texts to %d tokens, but neither tokenizer_config.json's pad_token nor config.json's text_config.pad_token_id names the pad token; set pad_to_max_length and pad_id", field("pad_id"), fc.modelType, spec.MaxLength)
			}
			spec.PadID = id
		}
	}
	if spec.MaxLength == 0 && fileTrunc != nil && fileTrunc.MaxLength > 0 {
		spec.MaxLength = fileTrunc.MaxLength
	}
	switch {
	case filePad != nil:
		spec.padLeft = filePad.Direction == tokenizer.Left
	default:
		spec.padLeft = fc.paddingSide == "left"
	}
	if fc.lowercases() {
		spec.Lowercase = true
	}
	if spec.ZeroShot == "" && fc.siglip() {
		spec.ZeroShot = ZeroShotSigmoid
	}
	if spec.ZeroShot == ZeroShotSigmoid && spec.LogitScale == 0 {
		return spec, fmt.Errorf("%s: missing: zero-shot by sigmoid (SigLIP) needs the checkpoint's logit_scale and logit_bias (exp of the model's logit_scale parameter, and its logit_bias); CLIP's default of 100 does not apply", field("logit_scale"))
	}
	if h != nil {
		if spec.Lowercase {
			h.t.PrependLowercase()
		}
		if spec.MaxLength > 0 {
			tr := tokenizer.Truncation{MaxLength: spec.MaxLength, Strategy: tokenizer.LongestFirst, Direction: tokenizer.Right}
			if fileTrunc != nil {
				tr.Direction = fileTrunc.Direction
			}
			h.t.SetTruncation(&tr)
		}
	}
	return spec, nil
}
