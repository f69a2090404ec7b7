package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// roleFiles are the files of a role's folder that decide its outputs, as
// the loaders of each role read them; a folder holds some of them (a role
// has alternatives, such as the captioner's first-step decoder). The
// tokenizer is added by RoleName. Nil for a role RoleName does not name.
func roleFiles(role Role) []string {
	switch role {
	case RoleLMReader:
		return []string{"model.onnx", "decoder_model_merged.onnx", "config.json"}
	case RoleImageText:
		// config.json and tokenizer_config.json decide SigLIP's padding,
		// lowercasing and zero-shot rule (imageTextSpec).
		// spiece.model is SigLIP v1's tokenizer where tokenizer.json is
		// absent (sentencePieceInstead).
		return []string{"text_model.onnx", "vision_model.onnx", "onnx/text_model.onnx", "onnx/vision_model.onnx", "preprocessor_config.json", "config.json", "tokenizer_config.json", "spiece.model"}
	case RoleCaptioner:
		return []string{"encoder_model.onnx", "decoder_model.onnx", "decoder_model_merged.onnx", "decoder_with_past_model.onnx", "preprocessor_config.json", "config.json"}
	case RoleVLMReader, RoleScreenReader:
		return []string{"vision_encoder.onnx", "embed_tokens.onnx", "decoder_model_merged.onnx", "decoder_model.onnx", "preprocessor_config.json", "config.json"}
	case RoleASR:
		return []string{"encoder_model.onnx", "decoder_model.onnx", "decoder_model_merged.onnx", "decoder_with_past_model.onnx", "config.json", "generation_config.json", "preprocessor_config.json"}
	}
	return nil
}

// RoleName is a role's identity, the one name config.json, the cache keys
// and every cache of a role's outputs use for its weights: the role, its
// folder's base name, the settings models.json gives it (RoleSettings) and
// the SHA-256 (first 16 hex digits) of each file that decides its outputs,
// the tokenizer included. Two runs whose role names are equal read the same
// answers from the same inputs; any file or setting that changes an answer
// changes the name, so a stored answer is never served for another model.
// Files the folder lacks are left out.
func RoleName(role Role, folder string, spec RoleSpec) (string, error) {
	files := roleFiles(role)
	if files == nil {
		return "", fmt.Errorf("role %q has no weight files to name", role)
	}
	tok := spec.Tokenizer
	if tok == "" {
		tok = "tokenizer.json"
	}
	settings, err := RoleSettings(spec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "onnx:%s:%s", role, filepath.Base(folder))
	if settings != "" {
		b.WriteString(":" + settings)
	}
	hashed := append(files, tok)
	if role == RoleLMReader || role == RoleVLMReader || role == RoleScreenReader {
		// The chat template the reader renders its prompts with (Prompting).
		hashed = append(hashed, chatTemplateFiles...)
	}
	for _, f := range hashed {
		path := filepath.Join(folder, f)
		fh, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", path, err)
		}
		fmt.Fprintf(&b, ":%s=sha256:%s", f, hex.EncodeToString(h.Sum(nil))[:16])
	}
	return b.String(), nil
}

// RoleSettings is the part of a role's models.json entry that changes its
// answers ("" when the entry sets none): every field but where the files
// are (dir, and tokenizer, whose file RoleName hashes) and the server
// fields (served.Name names a served role; where it is and how the client
// is tuned change no answer), as key=value pairs in key order, each value
// in JSON ("logit_scale=50,max_new_tokens=64"). A captioner's
// max_new_tokens or image_text's logit_scale changes every caption or frame
// score, so it must change config.json and the cache keys as a changed
// weight file does (issue 24, 2.3). The fields are read from the manifest's
// own encoding, so a setting added to RoleSpec later is covered.
func RoleSettings(spec RoleSpec) (string, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("role settings: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("role settings: %w", err)
	}
	for k, v := range m {
		if k == "dir" || k == "tokenizer" || strings.HasPrefix(k, "server") || v == nil || v == false || v == float64(0) || v == "" {
			delete(m, k)
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		v, err := json.Marshal(m[k])
		if err != nil {
			return "", fmt.Errorf("role settings: %w", err)
		}
		parts[i] = k + "=" + string(v)
	}
	return strings.Join(parts, ","), nil
}
