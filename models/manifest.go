package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ManifestFile is the manifest's name inside a models directory.
const ManifestFile = "models.json"

// Role names what a model is used for.
type Role string

// The model roles of docs/models.md ("Models").
const (
	RoleImageText  Role = "image_text"  // CLIP/SigLIP: image and text embeddings, logit scale
	RoleTextEmbed  Role = "text_embed"  // BGE: question embeddings, near-duplicate search
	RoleDupConfirm Role = "dup_confirm" // MPNet: second opinion on near-duplicates
	RoleCaptioner  Role = "captioner"   // image to text, greedy with a cache
	RoleLMReader   Role = "lm_reader"   // causal LM: prompt to option-letter log-probabilities
	RoleVLMReader  Role = "vlm_reader"  // vision encoder + decoder: frames and prompt to letters
	// RoleScreenReader is a second, smaller VLM (the layout of vlm_reader)
	// for the screening funnel's 32-frame steps (Video-Index 5.1: "a weaker
	// VLM" answers from 32 frames in order and shuffled). Optional: without
	// it vlm_reader serves those steps too.
	RoleScreenReader Role = "screen_reader"
	// RoleASR transcribes a video's audio track (Video-Oasis 3.1, the audio
	// test): a Whisper-style encoder-decoder export. Optional: without it
	// the transcript attackers are skipped, naming it.
	RoleASR Role = "asr"
)

// Roles lists every role models init writes and models check checks, in
// the order reports print them; OptionalRoles those a models directory may
// add.
var (
	Roles         = []Role{RoleImageText, RoleTextEmbed, RoleDupConfirm, RoleCaptioner, RoleLMReader, RoleVLMReader}
	OptionalRoles = []Role{RoleScreenReader, RoleASR}
)

// Pooling turns token rows into one sentence vector.
type Pooling string

// Poolings: CLS takes the first row (BGE, per its model card); mean averages
// the rows the attention mask keeps (sentence-transformers' MiniLM, MPNet).
const (
	PoolCLS  Pooling = "cls"
	PoolMean Pooling = "mean"
)

// RoleSpec is one role's entry in models.json.
type RoleSpec struct {
	// Dir is the role's folder, relative to the models directory.
	Dir string `json:"dir"`
	// Tokenizer is the tokenizer file inside Dir (default tokenizer.json).
	Tokenizer string `json:"tokenizer,omitempty"`
	// Pooling is cls or mean (text_embed, dup_confirm).
	Pooling Pooling `json:"pooling,omitempty"`
	// MaxLength caps tokens per text, special tokens included (0: the role's
	// default: 512 for encoders, 77 for CLIP, 2048 for readers).
	MaxLength int `json:"max_length,omitempty"`
	// LetterVariants are templates of the strings an option letter may be
	// generated as, with {L} for the letter; each that is a single token
	// counts, merged by log-sum-exp (default "{L}" and " {L}").
	LetterVariants []string `json:"letter_variants,omitempty"`
	// LogitScale multiplies cosines into logits (image_text; default 100,
	// CLIP's trained value); LogitBias is added after (SigLIP).
	LogitScale float64 `json:"logit_scale,omitempty"`
	LogitBias  float64 `json:"logit_bias,omitempty"`
	// PadToMaxLength pads every text to MaxLength with PadID (image_text):
	// SigLIP's text tower was trained on texts padded to 64 tokens and takes
	// no attention mask, so its embeddings are only right that way
	// (transformers' SigLIP model card: padding="max_length").
	PadToMaxLength bool `json:"pad_to_max_length,omitempty"`
	PadID          int  `json:"pad_id,omitempty"`
	// Lowercase lowercases texts before the tokenizer's own normalizer
	// (image_text): SigLIP2 was trained on lowercased text and transformers'
	// Siglip2Tokenizer prepends a Lowercase normalizer to Gemma's; SigLIP's
	// slow SiglipTokenizer lowercases by do_lower_case. The loader sets it
	// by itself for those (imageTextSpec); true forces it for any model.
	Lowercase bool `json:"lowercase,omitempty"`
	// ZeroShot is how image_text turns logits into scores: "softmax" over
	// the texts (CLIP) or "sigmoid" per pair (SigLIP's loss and
	// classifier); default sigmoid for config.json model_type siglip and
	// siglip2, softmax otherwise.
	ZeroShot string `json:"zero_shot,omitempty"`
	// padLeft pads texts on the left (the tokenizer file's padding
	// direction or tokenizer_config.json's padding_side), set by the loader.
	padLeft bool
	// MaxNewTokens bounds a caption (default 32).
	MaxNewTokens int `json:"max_new_tokens,omitempty"`
	// Language is the language an asr model transcribes in, as its
	// generation_config.json's lang_to_id names it ("en" or "<|en|>"); left
	// out, a multilingual Whisper detects it from each track's first 30 s
	// (ONNX) or the server is asked for "en" (served).
	Language string `json:"language,omitempty"`
	// Server, for the roles a model writes or reads text for (lm_reader,
	// vlm_reader, screen_reader, captioner, asr), is the base URL of an
	// OpenAI-compatible server that serves the role instead of ONNX files;
	// ServerModel is the model name to ask it for. The other Server* keys
	// tune the client (ServerSettings); they are refused without Server.
	Server      string `json:"server,omitempty"`
	ServerModel string `json:"server_model,omitempty"`
	// Servers, in place of Server, are the base URLs of several replicas
	// of the one model ServerModel names (eight vLLM servers of one node,
	// one a GPU): the role's requests are spread over them, and its
	// answers are the same as from one. A field of its own, because a
	// role given as a list of entries means extra readers (lm_reader#2),
	// not replicas; an entry with both Server and Servers is refused.
	Servers []string `json:"servers,omitempty"`
	// ServerConcurrency bounds the requests in flight to each server (0:
	// 8); with Servers, to each replica.
	ServerConcurrency int `json:"server_concurrency,omitempty"`
	// ServerTimeoutS bounds one attempt, in seconds (0: 300, a cold server
	// compiles its graphs on the first request).
	ServerTimeoutS float64 `json:"server_timeout_s,omitempty"`
	// ServerRetries is how many times a failed request is tried again (nil:
	// 4); a pointer so that 0, no retries, can be said.
	ServerRetries *int `json:"server_retries,omitempty"`
	// ServerAPIKeyEnv names the environment variable holding the bearer
	// token (servers started with --api-key). The manifest names the
	// variable, never the key, so no key is copied into a run directory.
	ServerAPIKeyEnv string `json:"server_api_key_env,omitempty"`
	// ServerAllowRemote permits a server off the loopback (a vLLM on
	// another node of the cluster); without it such a URL is refused.
	ServerAllowRemote bool `json:"server_allow_remote,omitempty"`
	// ServerChatTemplateKwargs is a JSON object sent with every chat
	// request as chat_template_kwargs, which vLLM, SGLang and the llama.cpp
	// server hand to the model's chat template: {"enable_thinking": false}
	// keeps Qwen3's template from opening a thinking block before the
	// answer letter. Kept as the manifest's bytes, checked to be an object
	// (ServerSettings carries it canonical).
	ServerChatTemplateKwargs json.RawMessage `json:"server_chat_template_kwargs,omitempty"`
	// ServerFrames is how a vlm_reader's or screen_reader's frames go to its
	// server: "images" (the default, one image_url part a frame) or "video"
	// (one video_url part holding them all), for a model the server takes
	// as video only (vLLM's LLaVA-NeXT-Video). models check says which the
	// server accepts.
	ServerFrames string `json:"server_frames,omitempty"`
}

// The zero-shot rules of image_text (RoleSpec.ZeroShot).
const (
	ZeroShotSoftmax = "softmax"
	ZeroShotSigmoid = "sigmoid"
)

// Manifest maps roles to folders.
//
// A role of models.json is one entry (an object) or a list of entries, each
// a model of the tests that use the role (the Video-Oasis diagnostic tests
// are run by several models, seed 003 section 3.2). Roles holds each role's
// first entry, the one the pyramid's attackers use; Extra the entries after
// it, in the file's order.
type Manifest struct {
	// Dir is the models directory the manifest was read from.
	Dir   string              `json:"-"`
	Roles map[Role]RoleSpec   `json:"roles"`
	Extra map[Role][]RoleSpec `json:"extra,omitempty"`
}

// Entries returns every entry of role: the first (Roles) then Extra; none
// when the manifest has no such role.
func (m *Manifest) Entries(role Role) []RoleSpec {
	first, ok := m.Roles[role]
	if !ok {
		return nil
	}
	return append([]RoleSpec{first}, m.Extra[role]...)
}

// Entry returns a manifest whose role is entry k of role in m (0 the
// first, as Entries orders them), the other roles as m has them, so that
// the Open functions open a later entry; nil when role has no entry k.
func (m *Manifest) Entry(role Role, k int) *Manifest {
	es := m.Entries(role)
	if k < 0 || k >= len(es) {
		return nil
	}
	out := &Manifest{Dir: m.Dir, Roles: map[Role]RoleSpec{}, Extra: m.Extra}
	for r, s := range m.Roles {
		out.Roles[r] = s
	}
	out.Roles[role] = es[k]
	return out
}

// layout lists, per role, the files a folder holds. Each entry is a list of
// alternatives: the first that exists is used. An ONNX file may be at the
// folder's root or under onnx/ (resolveFiles).
var layout = map[Role][][]string{
	RoleImageText: {{"text_model.onnx"}, {"vision_model.onnx"},
		{"tokenizer.json"}, {"preprocessor_config.json"}},
	RoleTextEmbed:  {{"model.onnx"}, {"tokenizer.json"}},
	RoleDupConfirm: {{"model.onnx"}, {"tokenizer.json"}},
	RoleCaptioner: {{"encoder_model.onnx"}, {"decoder_model_merged.onnx", "decoder_with_past_model.onnx"},
		{"tokenizer.json"}, {"preprocessor_config.json"}, {"config.json"}},
	RoleLMReader: {{"model.onnx", "decoder_model_merged.onnx"}, {"tokenizer.json"}},
	RoleVLMReader: {{"vision_encoder.onnx"}, {"embed_tokens.onnx"}, {"decoder_model_merged.onnx", "decoder_model.onnx"},
		{"tokenizer.json"}, {"preprocessor_config.json"}},
	RoleScreenReader: {{"vision_encoder.onnx"}, {"embed_tokens.onnx"}, {"decoder_model_merged.onnx", "decoder_model.onnx"},
		{"tokenizer.json"}, {"preprocessor_config.json"}},
	RoleASR: {{"encoder_model.onnx"}, {"decoder_model_merged.onnx", "decoder_with_past_model.onnx"},
		{"tokenizer.json"}, {"config.json"}},
}

// ExpectedFiles describes the files a role's folder must hold, for error
// messages: "text_model.onnx, vision_model.onnx, ...", alternatives joined
// by " or ". (An ONNX file may be at the folder's root or under onnx/:
// onnxWhere says so.)
func ExpectedFiles(role Role) string {
	var parts []string
	for _, alts := range layout[role] {
		parts = append(parts, strings.Join(alts, " or "))
	}
	return strings.Join(parts, ", ")
}

// onnxWhere is said after a missing file's name: where ONNX files are
// looked for.
const onnxWhere = "ONNX files are looked for at the folder's root, then under " + OnnxSubdir + "/"

// LoadManifest reads DIR/models.json. Unknown roles and fields are errors,
// so a typo does not silently leave a role out.
func LoadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s not found: a models directory holds %s mapping roles (%s) to folders; see docs/models.md", path, ManifestFile, roleList())
		}
		return nil, err
	}
	return ParseManifest(path, data)
}

// ParseManifest parses a manifest's bytes; path names it in errors and its
// directory resolves the role folders.
func ParseManifest(path string, data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var raw struct {
		Roles map[string]json.RawMessage `json:"roles"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(path, data, err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: text after the manifest object", path)
	}
	m := &Manifest{Dir: filepath.Dir(path), Roles: map[Role]RoleSpec{}}
	for name, msg := range raw.Roles {
		role := Role(name)
		if _, ok := layout[role]; !ok {
			return nil, fmt.Errorf("%s: roles.%s: unknown role; roles are %s", path, name, roleList())
		}
		// One entry, or a list of entries (the first is the role's).
		msgs := []json.RawMessage{msg}
		list := bytes.HasPrefix(bytes.TrimSpace(msg), []byte("["))
		if list {
			msgs = nil
			if err := json.Unmarshal(msg, &msgs); err != nil {
				return nil, jsonError(path, data, err, "roles."+name)
			}
			if len(msgs) == 0 {
				return nil, fmt.Errorf("%s: line %d: roles.%s: an empty list (give one entry or more)", path, lineOf(data, `"`+name+`"`), name)
			}
		}
		for k, em := range msgs {
			field := "roles." + name
			if list {
				field = fmt.Sprintf("roles.%s[%d]", name, k)
			}
			var spec RoleSpec
			d := json.NewDecoder(bytes.NewReader(em))
			d.DisallowUnknownFields()
			if err := d.Decode(&spec); err != nil {
				return nil, jsonError(path, data, err, field)
			}
			if err := spec.validate(role); err != nil {
				return nil, fmt.Errorf("%s: line %d: %s.%w", path, lineOf(data, `"`+name+`"`), field, err)
			}
			if k == 0 {
				m.Roles[role] = spec
				continue
			}
			if m.Extra == nil {
				m.Extra = map[Role][]RoleSpec{}
			}
			m.Extra[role] = append(m.Extra[role], spec)
		}
		if err := sameServedReader(m.Entries(role)); err != nil {
			return nil, fmt.Errorf("%s: line %d: roles.%s%w", path, lineOf(data, `"`+name+`"`), name, err)
		}
	}
	return m, nil
}

func (s RoleSpec) validate(role Role) error {
	if s.Dir == "" && !s.Served() && s.Servers == nil {
		return fmt.Errorf("dir: missing (the folder holding %s)", ExpectedFiles(role))
	}
	if err := s.validateServer(role); err != nil {
		return err
	}
	switch s.Pooling {
	case "", PoolCLS, PoolMean:
	default:
		return fmt.Errorf("pooling: %q is not cls or mean", s.Pooling)
	}
	if s.Pooling != "" && role != RoleTextEmbed && role != RoleDupConfirm {
		return fmt.Errorf("pooling: only text_embed and dup_confirm pool")
	}
	if s.PadToMaxLength && (role != RoleImageText || s.MaxLength == 0) {
		return fmt.Errorf("pad_to_max_length: only for image_text, with max_length set")
	}
	if s.Language != "" && role != RoleASR {
		return fmt.Errorf("language: only the asr role takes a language")
	}
	switch s.ZeroShot {
	case "", ZeroShotSoftmax, ZeroShotSigmoid:
	default:
		return fmt.Errorf("zero_shot: %q is not %s or %s", s.ZeroShot, ZeroShotSoftmax, ZeroShotSigmoid)
	}
	if (s.ZeroShot != "" || s.Lowercase) && role != RoleImageText {
		return fmt.Errorf("zero_shot/lowercase: only for image_text")
	}
	if s.MaxLength < 0 || s.MaxNewTokens < 0 || s.PadID < 0 {
		return fmt.Errorf("max_length/max_new_tokens: negative")
	}
	for _, v := range s.LetterVariants {
		if !strings.Contains(v, "{L}") {
			return fmt.Errorf("letter_variants: %q has no {L}", v)
		}
	}
	return nil
}

// jsonError names the line of a JSON syntax or type error.
func jsonError(path string, data []byte, err error, field string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s: line %d: %w", path, 1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")), err)
	case errors.As(err, &typ):
		f := typ.Field
		if field != "" {
			f = field + "." + f
		}
		return fmt.Errorf("%s: field %s: want %s, got JSON %s", path, f, typ.Type, typ.Value)
	}
	if field != "" {
		return fmt.Errorf("%s: %s: %w", path, field, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

func lineOf(data []byte, needle string) int {
	i := bytes.Index(data, []byte(needle))
	if i < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

func roleList() string {
	var s []string
	for _, r := range append(slices.Clone(Roles), OptionalRoles...) {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}

// Folder returns the folder of role (joined to the manifest's directory;
// "" for a role served by a server), or an error naming the files expected
// when the manifest has no such role.
func (m *Manifest) Folder(role Role) (string, RoleSpec, error) {
	spec, ok := m.Roles[role]
	if !ok {
		return "", spec, fmt.Errorf("%s: no %s role; add \"%s\": {\"dir\": FOLDER} with a folder holding %s",
			filepath.Join(m.Dir, ManifestFile), role, role, ExpectedFiles(role))
	}
	dir := spec.Dir
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(m.Dir, dir)
	}
	return dir, spec, nil
}

// OnnxSubdir is the folder of a model's ONNX files in the layout the
// Hugging Face Hub's ONNX repositories and transformers.js use
// (onnx/model.onnx, onnx/text_model.onnx, ...; transformers.js loads
// "onnx/" + name + a dtype suffix, none for fp32). Optimum's own export
// writes the same names at the folder's root; the loader takes either.
const OnnxSubdir = "onnx"

// onnxPlaces are where a layout's ONNX file may be, in the order looked
// at: the folder's root (optimum-cli export onnx), then onnx/ (the Hub's
// ONNX repositories, transformers.js, vidscreen models init).
var onnxPlaces = []string{"", OnnxSubdir}

// resolveFiles finds the files of role in dir: for each slot of the layout,
// the first alternative present, an ONNX file at the root or under onnx/.
// Missing slots are reported by name.
func resolveFiles(role Role, spec RoleSpec, dir string) (found map[string]string, missing []string) {
	found = map[string]string{}
	for _, alts := range layout[role] {
		if alts[0] == "tokenizer.json" && spec.Tokenizer != "" {
			alts = []string{spec.Tokenizer}
		}
		ok := false
	search:
		for _, name := range alts {
			places := onnxPlaces[:1]
			if strings.HasSuffix(name, ".onnx") {
				places = onnxPlaces
			}
			for _, sub := range places {
				p := filepath.Join(dir, sub, name)
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					slot := alts[0]
					if name == spec.Tokenizer {
						slot = "tokenizer.json"
					}
					found[slot] = p
					ok = true
					break search
				}
			}
		}
		if !ok {
			missing = append(missing, strings.Join(alts, " or "))
		}
	}
	return found, missing
}
