package models

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// signature lists the names a model file must have: each inner list is a
// set of alternatives, one of which must be present.
type signature struct {
	inputs, outputs [][]string
}

// signatures holds, per role and layout slot, the HF Optimum / ONNX export
// names the runners use.
var signatures = map[Role]map[string]signature{
	RoleImageText: {
		// pooler_output: Optimum's SigLIP towers (the pooled, projected vector).
		"text_model.onnx":   {inputs: [][]string{{"input_ids"}}, outputs: [][]string{{"text_embeds", "pooler_output"}}},
		"vision_model.onnx": {inputs: [][]string{{"pixel_values"}}, outputs: [][]string{{"image_embeds", "pooler_output"}}},
	},
	RoleTextEmbed:  {"model.onnx": encoderSignature},
	RoleDupConfirm: {"model.onnx": encoderSignature},
	RoleCaptioner: {
		"encoder_model.onnx":        {inputs: [][]string{{"pixel_values"}}, outputs: [][]string{{"last_hidden_state"}}},
		"decoder_model_merged.onnx": {inputs: [][]string{{"input_ids"}, {"encoder_hidden_states"}}, outputs: [][]string{{"logits"}}},
	},
	RoleLMReader:     {"model.onnx": {inputs: [][]string{{"input_ids"}, {"attention_mask"}}, outputs: [][]string{{"logits"}}}},
	RoleVLMReader:    vlmSignatures,
	RoleScreenReader: vlmSignatures,
	RoleASR: {
		"encoder_model.onnx":        {inputs: [][]string{{"input_features"}}, outputs: [][]string{{"last_hidden_state"}}},
		"decoder_model_merged.onnx": {inputs: [][]string{{"input_ids"}, {"encoder_hidden_states"}}, outputs: [][]string{{"logits"}}},
	},
}

// vlmSignatures are the files of a VLM role, vlm_reader or screen_reader.
var vlmSignatures = map[string]signature{
	"vision_encoder.onnx":       {inputs: [][]string{{"pixel_values"}}, outputs: [][]string{{"image_features", "image_embeds"}}},
	"embed_tokens.onnx":         {inputs: [][]string{{"input_ids"}}, outputs: [][]string{{"inputs_embeds"}}},
	"decoder_model_merged.onnx": {inputs: [][]string{{"inputs_embeds"}, {"attention_mask"}}, outputs: [][]string{{"logits"}}},
}

var encoderSignature = signature{
	inputs:  [][]string{{"input_ids"}, {"attention_mask"}},
	outputs: [][]string{{"last_hidden_state", "token_embeddings"}},
}

// check returns one problem per required name the session lacks.
func (sig signature) check(s *Session) []string {
	var problems []string
	look := func(kind string, want [][]string, has func(string) (TensorInfo, bool)) {
		for _, alts := range want {
			ok := false
			for _, n := range alts {
				if _, found := has(n); found {
					ok = true
				}
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: no %s named %s", filepath.Base(s.Path()), kind, strings.Join(alts, " or ")))
			}
		}
	}
	look("input", sig.inputs, s.Input)
	look("output", sig.outputs, s.Output)
	return problems
}

// CheckReport is what `vidscreen models check` prints: per role, the folder,
// the files found, each session's inputs and outputs, whether the tokenizer
// loaded, and every problem.
type CheckReport struct {
	Dir      string       `json:"dir"`
	Library  string       `json:"ort_library"`
	Version  string       `json:"ort_version"`
	Device   string       `json:"device"`
	Fallback string       `json:"cuda_fallback,omitempty"`
	Roles    []RoleReport `json:"roles"`
}

// RoleReport is one role of a CheckReport.
type RoleReport struct {
	Role     Role            `json:"role"`
	Dir      string          `json:"dir,omitempty"`
	Server   string          `json:"server,omitempty"`
	Files    []FileReport    `json:"files,omitempty"`
	Sessions []SessionReport `json:"sessions,omitempty"`
	// Tokenizer is the tokenizer file, TokenizerLoaded whether it loaded,
	// and ProbeIDs the ids it gives for ProbeText.
	Tokenizer       string   `json:"tokenizer,omitempty"`
	TokenizerLoaded bool     `json:"tokenizer_loaded"`
	ProbeIDs        []int    `json:"probe_ids,omitempty"`
	Problems        []string `json:"problems,omitempty"`
}

// FileReport is one file of a role's folder.
type FileReport struct {
	Name  string `json:"name"`
	Path  string `json:"path,omitempty"`
	Size  int64  `json:"size"`
	Found bool   `json:"found"`
}

// SessionReport is one loaded model file.
type SessionReport struct {
	File    string       `json:"file"`
	Device  string       `json:"device"`
	Inputs  []TensorInfo `json:"inputs"`
	Outputs []TensorInfo `json:"outputs"`
}

// ProbeText is encoded by every tokenizer CheckDir loads, so a user can
// compare the ids with the reference tokenizer's.
const ProbeText = "What is the man doing?"

// OK reports whether no role has a problem.
func (r *CheckReport) OK() bool { return r.problemCount() == 0 }

func (r *CheckReport) problemCount() int {
	n := 0
	for _, rr := range r.Roles {
		n += len(rr.Problems)
	}
	return n
}

// CheckDir validates the models directory dir: the manifest, every role's
// files, each model's input and output names (loading it on the first device
// of opts), and each tokenizer. The report is returned whenever the manifest
// could be read; err is non-nil when anything is wrong, and then the report
// says what.
func CheckDir(ctx context.Context, dir string, opts RuntimeOptions) (*CheckReport, error) {
	return CheckRoles(ctx, dir, opts, Roles)
}

// CheckRoles is CheckDir for the given roles only: those a run will use.
// A role the manifest does not list is reported as a problem like any
// other, so a run learns before it starts which role it lacks.
func CheckRoles(ctx context.Context, dir string, opts RuntimeOptions, roles []Role) (*CheckReport, error) {
	rep := &CheckReport{Dir: dir, Device: opts.Device.String()}
	m, err := LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	rt, err := NewRuntime(opts)
	if err != nil {
		return nil, err
	}
	rep.Library, rep.Version = rt.Library(), rt.Version()
	dev := rt.Devices()[0]
	for _, role := range roles {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		rep.Roles = append(rep.Roles, checkRole(rt, m, role, dev))
	}
	if f := rt.CUDAFailure(); f != nil {
		rep.Fallback = f.Error()
	}
	if n := rep.problemCount(); n > 0 {
		return rep, fmt.Errorf("models check %s: %d problem(s)", dir, n)
	}
	return rep, nil
}

func checkRole(rt *Runtime, m *Manifest, role Role, dev gpu.Device) RoleReport {
	rr := RoleReport{Role: role}
	dir, spec, err := m.Folder(role)
	if err != nil {
		rr.Problems = append(rr.Problems, err.Error())
		return rr
	}
	if spec.Served() {
		rr.Server = strings.Join(spec.ServerURLs(), ", ")
		return rr
	}
	rr.Dir = dir
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		rr.Problems = append(rr.Problems, fmt.Sprintf("folder %s not found; it should hold %s", dir, ExpectedFiles(role)))
		return rr
	}
	found, missing := resolveFiles(role, spec, dir)
	missing = sentencePieceInstead(role, spec, dir, found, missing)
	for _, name := range missing {
		rr.Problems = append(rr.Problems, fmt.Sprintf("%s: missing %s (the %s role needs %s); %s", dir, name, role, ExpectedFiles(role), onnxWhere))
		rr.Files = append(rr.Files, FileReport{Name: name})
	}
	slots := make([]string, 0, len(found))
	for slot := range found {
		slots = append(slots, slot)
	}
	for _, extra := range []string{"config.json", "preprocessor_config.json"} {
		if _, ok := found[extra]; !ok {
			if _, err := os.Stat(filepath.Join(dir, extra)); err == nil {
				found[extra] = filepath.Join(dir, extra)
				slots = append(slots, extra)
			}
		}
	}
	sort.Strings(slots)
	for _, slot := range slots {
		p := found[slot]
		fr := FileReport{Name: relName(dir, p), Path: p, Found: true}
		if st, err := os.Stat(p); err == nil {
			fr.Size = st.Size()
		}
		rr.Files = append(rr.Files, fr)
		switch {
		case strings.HasSuffix(p, ".onnx"):
			s, err := rt.NewSession(p, dev, DynamicShapes)
			if err != nil {
				rr.Problems = append(rr.Problems, err.Error())
				continue
			}
			rr.Sessions = append(rr.Sessions, SessionReport{File: relName(dir, p), Device: s.Device().ID(), Inputs: s.Inputs(), Outputs: s.Outputs()})
			if sig, ok := signatures[role][slot]; ok {
				rr.Problems = append(rr.Problems, sig.check(s)...)
			}
			s.Close()
		case slot == "preprocessor_config.json" && role == RoleASR:
			if err := checkWhisperFeatures(p); err != nil {
				rr.Problems = append(rr.Problems, err.Error())
			}
		case slot == "preprocessor_config.json":
			if cfg, err := imageprep.ReadConfig(p); err != nil {
				rr.Problems = append(rr.Problems, err.Error())
			} else if _, err := imageprep.New(*cfg, imageprep.Options{}); err != nil {
				rr.Problems = append(rr.Problems, fmt.Sprintf("%s: %v", p, err))
			}
		case slot == "tokenizer.json":
			rr.Tokenizer = p
			load := LoadTokenizer
			if role == RoleImageText {
				load = func(p string) (Tokenizer, error) { return loadImageTextTokenizer(p, dir) }
			}
			tok, err := load(p)
			if err != nil {
				rr.Problems = append(rr.Problems, err.Error())
				continue
			}
			rr.TokenizerLoaded = true
			if ids, err := tok.Encode(ProbeText, true); err == nil {
				rr.ProbeIDs = ids
			} else {
				rr.Problems = append(rr.Problems, fmt.Sprintf("%s: encode %q: %v", p, ProbeText, err))
			}
		}
	}
	if role == RoleASR {
		rr.Problems = append(rr.Problems, asrProblems(dir, spec, rr.Sessions)...)
	}
	return rr
}

// String returns the report as WriteText prints it.
func (r *CheckReport) String() string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

// WriteText prints the report for a person: one block per role.
func (r *CheckReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("models: %s\nONNX Runtime %s (%s), device %s\n", r.Dir, r.Version, r.Library, r.Device)
	if r.Fallback != "" {
		ew.printf("CUDA fallback: %s\n", r.Fallback)
	}
	for _, rr := range r.Roles {
		status := "ok"
		if len(rr.Problems) > 0 {
			status = fmt.Sprintf("%d problem(s)", len(rr.Problems))
		}
		ew.printf("\n%s: %s\n", rr.Role, status)
		if rr.Server != "" {
			ew.printf("  served by %s\n", rr.Server)
		}
		if rr.Dir != "" {
			ew.printf("  folder %s\n", rr.Dir)
		}
		for _, f := range rr.Files {
			if f.Found {
				ew.printf("  file %s (%d bytes)\n", f.Name, f.Size)
			} else {
				ew.printf("  file %s MISSING\n", f.Name)
			}
		}
		for _, s := range rr.Sessions {
			ew.printf("  session %s on %s\n", s.File, s.Device)
			for _, in := range s.Inputs {
				ew.printf("    in  %s\n", in)
			}
			for _, out := range s.Outputs {
				ew.printf("    out %s\n", out)
			}
		}
		if rr.Tokenizer != "" {
			if rr.TokenizerLoaded {
				ew.printf("  tokenizer %s: %q -> %v\n", filepath.Base(rr.Tokenizer), ProbeText, rr.ProbeIDs)
			} else {
				ew.printf("  tokenizer %s did not load\n", filepath.Base(rr.Tokenizer))
			}
		}
		for _, p := range rr.Problems {
			ew.printf("  problem: %s\n", p)
		}
	}
	return ew.err
}

// errWriter keeps the first write error, so WriteText reads as a list of
// prints.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// relName names file p by its path inside the role's folder dir
// ("onnx/model.onnx" in the Hub's layout, "model.onnx" at the root).
func relName(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.Base(p)
}
