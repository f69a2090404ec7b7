package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
)

// roleFiles resolves a role's folder and files, failing with the list of
// files expected when any is missing. Roles served by a server have no
// files and are an error here.
func (m *Manifest) roleFiles(role Role) (map[string]string, RoleSpec, error) {
	dir, spec, err := m.Folder(role)
	if err != nil {
		return nil, spec, err
	}
	if spec.Served() {
		return nil, spec, fmt.Errorf("%s: %s is served by %s, not by ONNX files", filepath.Join(m.Dir, ManifestFile), role, strings.Join(spec.ServerURLs(), ", "))
	}
	found, missing := resolveFiles(role, spec, dir)
	missing = sentencePieceInstead(role, spec, dir, found, missing)
	if len(missing) > 0 {
		return nil, spec, fmt.Errorf("%s role: folder %s lacks %v; it needs %s (%s)%s", role, dir, missing, ExpectedFiles(role), onnxWhere, slowTokenizerHint(dir, missing))
	}
	return found, spec, nil
}

// openSessions opens the named slots on dev, closing them all on error.
func (r *Runtime) openSessions(files map[string]string, dev gpu.Device, slots map[string]ShapeProfile) (map[string]*Session, error) {
	out := map[string]*Session{}
	for slot, profile := range slots {
		s, err := r.NewSession(files[slot], dev, profile)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, err
		}
		out[slot] = s
	}
	return out, nil
}

// OpenTextEncoder opens text_embed or dup_confirm on dev. Pooling defaults
// to cls for text_embed (BGE) and mean for dup_confirm (MPNet).
func (r *Runtime) OpenTextEncoder(m *Manifest, role Role, dev gpu.Device) (*TextEncoder, error) {
	if role != RoleTextEmbed && role != RoleDupConfirm {
		return nil, fmt.Errorf("OpenTextEncoder: role %s is not a text encoder", role)
	}
	files, spec, err := m.roleFiles(role)
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(files["tokenizer.json"])
	if err != nil {
		return nil, err
	}
	pooling := spec.Pooling
	if pooling == "" {
		pooling = PoolCLS
		if role == RoleDupConfirm {
			pooling = PoolMean
		}
	}
	ss, err := r.openSessions(files, dev, map[string]ShapeProfile{"model.onnx": DynamicShapes})
	if err != nil {
		return nil, err
	}
	e, err := NewTextEncoder(ss["model.onnx"], tok, pooling, spec.MaxLength)
	if err != nil {
		ss["model.onnx"].Close()
		return nil, err
	}
	return e, nil
}

// OpenImageText opens image_text on dev.
func (r *Runtime) OpenImageText(m *Manifest, dev gpu.Device) (*ImageText, error) {
	files, spec, err := m.roleFiles(RoleImageText)
	if err != nil {
		return nil, err
	}
	dir, _, _ := m.Folder(RoleImageText)
	tok, err := loadImageTextTokenizer(files["tokenizer.json"], dir)
	if err != nil {
		return nil, err
	}
	if spec, err = imageTextSpec(filepath.Join(m.Dir, ManifestFile), dir, spec, tok); err != nil {
		return nil, err
	}
	ss, err := r.openSessions(files, dev, map[string]ShapeProfile{"text_model.onnx": DynamicShapes, "vision_model.onnx": FixedShapes})
	if err != nil {
		return nil, err
	}
	it, err := NewImageText(ss["text_model.onnx"], ss["vision_model.onnx"], tok, spec)
	if err == nil {
		it.prep, err = loadPreprocessor(files["preprocessor_config.json"], it.c, it.h, it.w)
	}
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	return it, nil
}

// OpenLetterScorer opens lm_reader on dev.
func (r *Runtime) OpenLetterScorer(m *Manifest, dev gpu.Device) (*LetterScorer, error) {
	files, spec, err := m.roleFiles(RoleLMReader)
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(files["tokenizer.json"])
	if err != nil {
		return nil, err
	}
	ss, err := r.openSessions(files, dev, map[string]ShapeProfile{"model.onnx": DynamicShapes})
	if err != nil {
		return nil, err
	}
	ls, err := NewLetterScorer(ss["model.onnx"], tok, spec)
	if err == nil {
		ls.Prompting, err = r.loadPrompting(roleDir(files, "tokenizer.json"), m.Dir)
	}
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	return ls, nil
}

// OpenCaptioner opens captioner on dev. The start and end tokens come from
// config.json (decoder_start_token_id or bos_token_id; eos_token_id).
func (r *Runtime) OpenCaptioner(m *Manifest, dev gpu.Device) (*Captioner, error) {
	files, spec, err := m.roleFiles(RoleCaptioner)
	if err != nil {
		return nil, err
	}
	bos, eos, err := decoderTokens(files["config.json"])
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(files["tokenizer.json"])
	if err != nil {
		return nil, err
	}
	slots := map[string]ShapeProfile{"encoder_model.onnx": FixedShapes, "decoder_model_merged.onnx": DynamicShapes}
	// A decoder_with_past_model.onnx beside a decoder_model.onnx: the
	// latter runs the first step, as Optimum's pair is meant to be used.
	first := filepath.Join(filepath.Dir(files["encoder_model.onnx"]), "decoder_model.onnx")
	if filepath.Base(files["decoder_model_merged.onnx"]) == "decoder_with_past_model.onnx" {
		if _, err := os.Stat(first); err == nil {
			files["first"] = first
			slots["first"] = DynamicShapes
		}
	}
	ss, err := r.openSessions(files, dev, slots)
	if err != nil {
		return nil, err
	}
	c, err := NewCaptioner(ss["encoder_model.onnx"], ss["decoder_model_merged.onnx"], ss["first"], tok, bos, eos)
	if err == nil {
		px, _ := ss["encoder_model.onnx"].Input("pixel_values")
		if len(px.Shape) != 4 {
			err = fmt.Errorf("%s: pixel_values has shape %v; want (batch, channels, height, width)", files["encoder_model.onnx"], px.Shape)
		} else {
			c.prep, err = loadPreprocessor(files["preprocessor_config.json"], int(px.Shape[1]), int(px.Shape[2]), int(px.Shape[3]))
		}
	}
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	if spec.MaxNewTokens > 0 {
		c.MaxNewTokens = spec.MaxNewTokens
	}
	return c, nil
}

// OpenVLMReader opens vlm_reader on dev; config.json's bos_token_id, when
// present, starts every prompt.
func (r *Runtime) OpenVLMReader(m *Manifest, dev gpu.Device) (*VLMReader, error) {
	return r.OpenVLMRole(m, RoleVLMReader, dev)
}

// OpenVLMRole opens a VLM role, vlm_reader or screen_reader (the screening
// funnel's smaller VLM, Video-Index 5.1), on dev.
func (r *Runtime) OpenVLMRole(m *Manifest, role Role, dev gpu.Device) (*VLMReader, error) {
	if role != RoleVLMReader && role != RoleScreenReader {
		return nil, fmt.Errorf("OpenVLMRole: role %s is not a VLM", role)
	}
	files, spec, err := m.roleFiles(role)
	if err != nil {
		return nil, err
	}
	bos, imageToken := -1, -1
	// config.json is at the folder's root, also when the ONNX files are
	// under onnx/.
	dir, _, err := m.Folder(role)
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "config.json")
	if fileExists(cfgPath) {
		cfg, err := readModelConfig(cfgPath)
		if err != nil {
			return nil, err
		}
		if id, ok := cfg.tokenID("bos_token_id"); ok {
			bos = id
		}
		if id, ok := cfg.tokenID("image_token_id", "image_token_index"); ok {
			imageToken = id
		}
	}
	prompting, err := r.loadPrompting(roleDir(files, "tokenizer.json"), m.Dir)
	if err != nil {
		return nil, err
	}
	if prompting.Chat != nil && imageToken < 0 {
		return nil, fmt.Errorf("%s: no image_token_id (or image_token_index): the chat template of %s places images by that token", cfgPath, prompting.Chat.Source)
	}
	tok, err := LoadTokenizer(files["tokenizer.json"])
	if err != nil {
		return nil, err
	}
	ss, err := r.openSessions(files, dev, map[string]ShapeProfile{"vision_encoder.onnx": FixedShapes, "embed_tokens.onnx": DynamicShapes, "decoder_model_merged.onnx": DynamicShapes})
	if err != nil {
		return nil, err
	}
	v, err := NewVLMReader(ss["vision_encoder.onnx"], ss["embed_tokens.onnx"], ss["decoder_model_merged.onnx"], tok, bos, spec)
	if err == nil {
		v.Prompting, v.ImageToken = prompting, imageToken
		v.prep, err = loadPreprocessor(files["preprocessor_config.json"], v.c, v.h, v.w)
	}
	if err != nil {
		closeAll(ss)
		return nil, err
	}
	return v, nil
}

func closeAll(ss map[string]*Session) {
	for _, s := range ss {
		s.Close()
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// modelConfig is a config.json, kept as raw fields.
type modelConfig struct {
	path   string
	fields map[string]json.RawMessage
}

func readModelConfig(path string) (*modelConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &modelConfig{path: path}
	if err := json.Unmarshal(data, &c.fields); err != nil {
		return nil, jsonError(path, data, err, "")
	}
	return c, nil
}

// tokenID returns the first of keys that holds a token id (a number, or a
// list whose first element is one, as some configs list several end tokens).
// A key whose value is null holds none: JSON's null would otherwise decode
// as token 0.
func (c *modelConfig) tokenID(keys ...string) (int, bool) {
	for _, k := range keys {
		raw, ok := c.fields[k]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		var n int
		if json.Unmarshal(raw, &n) == nil {
			return n, true
		}
		var list []int
		if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
			return list[0], true
		}
	}
	return 0, false
}

// Close releases the encoder's session.
func (e *TextEncoder) Close() error { return e.sess.Close() }

// Close releases both towers.
func (m *ImageText) Close() error { m.text.Close(); return m.vision.Close() }

// Close releases the LM.
func (s *LetterScorer) Close() error { return s.sess.Close() }

// Close releases the captioner's sessions.
func (c *Captioner) Close() error {
	if c.first != nil {
		c.first.Close()
	}
	c.enc.Close()
	return c.dec.Close()
}

// Close releases the VLM's sessions.
func (v *VLMReader) Close() error {
	v.vision.Close()
	v.embed.Close()
	return v.dec.Close()
}
