package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// runModels runs "vidscreen models ARGS..." in-process.
func runModels(stdin string, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	env := &environment{stdin: strings.NewReader(stdin), stdout: &o, stderr: &e, getenv: func(k string) string {
		if k == models.LibraryEnv {
			return os.Getenv(k)
		}
		return ""
	}}
	code = run(context.Background(), append([]string{"models"}, args...), env)
	return code, o.String(), e.String()
}

// smallBERT is the repository's cut-down BERT tokenizer (models/testdata/README.md).
var smallBERT = filepath.Join("..", "..", "models", "testdata", "bert_wordpiece_small.json")

func TestModelsTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "one array per line with special tokens", args: []string{"--tokenizer", smallBERT},
			// The small vocabulary keeps ids under 2100: "photo" and "cat" are
			// unknown (100) and "man" is spelt in pieces (m ##a ##n).
			stdin: "a photo of a cat\r\n\nthe man\n", wantOut: "[101,1037,100,1997,1037,100,102]\n[101,102]\n[101,1996,1049,2050,2078,102]\n"},
		{name: "without special tokens", args: []string{"--tokenizer", smallBERT, "--special=false"},
			stdin: "the man", wantOut: "[1996,1049,2050,2078]\n"},
		{name: "with the file's padding", args: []string{"--tokenizer", smallBERT, "--padding"},
			stdin: "the", wantOut: "[101,1996,102" + strings.Repeat(",0", 125) + "]\n"},
		{name: "no input, no output", args: []string{"--tokenizer", smallBERT}, wantOut: ""},
		{name: "tokenizer required", args: nil, wantCode: 2, wantErr: "--tokenizer FILE is required"},
		{name: "missing file is bad input", args: []string{"--tokenizer", "no/such/tokenizer.json"}, wantCode: 2, wantErr: "no/such/tokenizer.json"},
		{name: "invalid UTF-8 is bad input, not silently dropped", args: []string{"--tokenizer", smallBERT},
			stdin: "the man\nab\xffc\n", wantCode: 2, wantErr: "standard input line 2: invalid UTF-8 at byte 3"},
		{name: "unknown flag", args: []string{"--tokenizer", smallBERT, "--bogus"}, wantCode: 2, wantErr: "unknown flag --bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runModels(tt.stdin, append([]string{"tokenize"}, tt.args...)...)
			if code != tt.wantCode || out != tt.wantOut || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr containing %q", code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErr)
			}
		})
	}
}

// The shared tokenizer files give the reference ids of
// ../shared/data/tokenizers/reference_ids.json through the command too.
func TestModelsTokenizeReferenceIDs(t *testing.T) {
	t.Parallel()
	dir := shareddata.Path(t, "tokenizers")
	data, err := os.ReadFile(shareddata.Path(t, "tokenizers", "reference_ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs []map[string]any
	if err := json.Unmarshal(data, &refs); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []struct{ key, file string }{{"clip_bpe", "clip_bpe_tokenizer.json"}, {"bert_wordpiece", "bert_wordpiece_tokenizer.json"}} {
		var in, want strings.Builder
		n := 0
		for _, r := range refs {
			text, _ := r["text"].(string)
			ids, ok := r[kind.key].([]any)
			if !ok || strings.ContainsAny(text, "\r\n") {
				continue
			}
			in.WriteString(text + "\n")
			b, _ := json.Marshal(ids)
			want.Write(b)
			want.WriteString("\n")
			n++
		}
		code, out, errOut := runModels(in.String(), "tokenize", "--tokenizer", filepath.Join(dir, kind.file))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", kind.file, code, errOut)
		}
		if out != want.String() {
			t.Errorf("%s: ids differ from the reference over %d texts\n got %s\nwant %s", kind.file, n, out, want.String())
		}
	}
}

func TestModelsDevices(t *testing.T) {
	code, out, errOut := runModels("", "devices")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Without a driver (CI, this machine) it names the missing library;
	// with one it lists cuda:0.
	if !strings.Contains(out, "no GPU found: NVML (libnvidia-ml.so.1)") && !strings.Contains(out, "cuda:0 ") {
		t.Errorf("stdout %q", out)
	}
	code, out, _ = runModels("", "devices", "--json")
	var inv struct {
		Devices []any  `json:"devices"`
		Missing string `json:"missing"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &inv) != nil || (len(inv.Devices) == 0) == (inv.Missing == "") {
		t.Errorf("--json: exit %d, %q", code, out)
	}
	if strings.Contains(out, `"devices": null`) || inv.Devices == nil {
		t.Errorf("--json without devices must list none, not null: %s", out)
	}
	if code, _, errOut := runModels("", "devices", "extra"); code != 2 || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("extra argument: exit %d, %q", code, errOut)
	}
}

func TestModelsUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args     []string
		wantCode int
		want     string
	}{
		{nil, 2, "name a subcommand"},
		{[]string{"frobnicate"}, 2, `unknown subcommand "frobnicate"`},
		{[]string{"check"}, 2, "name one models directory"},
		{[]string{"check", "--device", "gpu", "dir"}, 2, `device "gpu": unknown device`},
	} {
		code, _, errOut := runModels("", tt.args...)
		if code != tt.wantCode || !strings.Contains(errOut, tt.want) {
			t.Errorf("models %v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, tt.wantCode, tt.want)
		}
	}
	// models --help shows every subcommand with its flags; a subcommand's
	// --help shows its own page.
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"vidscreen models check [--device", "-device DEVICE", "vidscreen models tokenize --tokenizer FILE", "-tokenizer FILE", "vidscreen models devices [--json]"}},
		{[]string{"check", "--help"}, []string{"vidscreen models check [--device", "-device DEVICE"}},
		{[]string{"tokenize", "-h"}, []string{"vidscreen models tokenize --tokenizer FILE", "-tokenizer FILE"}},
	} {
		code, out, _ := runModels("", tt.args...)
		for _, want := range tt.want {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("models %v: exit %d, output lacks %q:\n%s", tt.args, code, want, out)
			}
		}
	}
}

// writeTinyModels builds tiny ONNX models for the roles named and a
// manifest listing only those.
func writeTinyModels(t *testing.T, roles ...models.Role) string {
	t.Helper()
	dir := t.TempDir()
	tok, err := os.ReadFile(smallBERT)
	if err != nil {
		t.Fatal(err)
	}
	build := map[models.Role]func(string) error{
		models.RoleImageText:  onnxbuild.NewCLIP(onnxbuild.TinyCLIP).WriteDir,
		models.RoleTextEmbed:  onnxbuild.NewEncoder(onnxbuild.TinyBERT).WriteDir,
		models.RoleDupConfirm: onnxbuild.NewEncoder(onnxbuild.TinyBERT).WriteDir,
		models.RoleCaptioner:  onnxbuild.NewCaptioner(onnxbuild.TinyCaptionerVision, onnxbuild.TinyCaptionerText, 4).WriteDir,
		models.RoleLMReader:   func(d string) error { return onnxbuild.NewLM(onnxbuild.TinyLM, 3).WriteLMDir(d, true) },
		models.RoleVLMReader:  onnxbuild.NewVLM(onnxbuild.TinyVLMVision, onnxbuild.TinyVLMText, 5).WriteDir,
	}
	spec := map[string]map[string]string{}
	for _, r := range roles {
		sub := filepath.Join(dir, string(r))
		if err := build[r](sub); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), tok, 0o644); err != nil {
			t.Fatal(err)
		}
		spec[string(r)] = map[string]string{"dir": string(r)}
	}
	m, _ := json.MarshalIndent(map[string]any{"roles": spec}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), m, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func needORT(t *testing.T) {
	t.Helper()
	if _, err := models.NewRuntime(models.RuntimeOptions{Getenv: func(k string) string {
		if k == models.LibraryEnv {
			return os.Getenv(k)
		}
		return ""
	}}); err != nil {
		t.Skipf("ONNX Runtime not available (run make setup-ort): %v", err)
	}
}

func TestModelsCheck(t *testing.T) {
	t.Parallel()
	needORT(t)
	t.Run("every role present", func(t *testing.T) {
		dir := writeTinyModels(t, models.Roles...)
		code, out, errOut := runModels("", "check", dir, "--device", "cpu")
		if code != 0 {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		for _, want := range []string{"image_text: ok", "vlm_reader: ok", "session text_model.onnx on cpu", "in  input_ids", "out last_hidden_state"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
		code, out, _ = runModels("", "check", "--json", dir)
		var rep models.CheckReport
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Roles) != len(models.Roles) || !rep.OK() {
			t.Errorf("--json: exit %d, %+v", code, rep)
		}
	})
	t.Run("a missing role exits 2 naming the files expected", func(t *testing.T) {
		dir := writeTinyModels(t, models.RoleTextEmbed)
		code, out, errOut := runModels("", "check", dir)
		if code != 2 {
			t.Fatalf("exit %d, want 2\nstderr %s", code, errOut)
		}
		if !strings.Contains(out, "text_embed: ok") || !strings.Contains(out, "session model.onnx on cpu") {
			t.Errorf("report does not show the role that is there:\n%s", out)
		}
		for _, want := range []string{"image_text: ", `no image_text role; add "image_text": {"dir": FOLDER}`, "text_model.onnx, vision_model.onnx, tokenizer.json, preprocessor_config.json", "lm_reader: "} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
	})
	t.Run("--roles checks only the roles a run uses", func(t *testing.T) {
		dir := writeTinyModels(t, models.RoleTextEmbed, models.RoleDupConfirm)
		code, out, errOut := runModels("", "check", dir, "--roles", "text_embed,dup_confirm")
		if code != 0 || !strings.Contains(out, "text_embed: ok") || !strings.Contains(out, "dup_confirm: ok") || strings.Contains(out, "image_text") {
			t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		code, _, errOut = runModels("", "check", dir, "--roles", "text_embed,captioner")
		if code != 2 || !strings.Contains(errOut, "1 problem(s)") || !strings.Contains(errOut, "no captioner role") || strings.Contains(errOut, "image_text") {
			t.Errorf("a role the run needs and lacks: exit %d, stderr %s", code, errOut)
		}
		code, _, errOut = runModels("", "check", dir, "--roles", "text_embed,bge")
		if code != 2 || !strings.Contains(errOut, `unknown role "bge"`) {
			t.Errorf("an unknown role: exit %d, stderr %s", code, errOut)
		}
	})
	t.Run("a missing file is named", func(t *testing.T) {
		dir := writeTinyModels(t, models.RoleTextEmbed)
		os.Remove(filepath.Join(dir, "text_embed", "tokenizer.json"))
		code, _, errOut := runModels("", "check", dir)
		if code != 2 || !strings.Contains(errOut, "missing tokenizer.json (the text_embed role needs model.onnx, tokenizer.json)") {
			t.Errorf("exit %d, stderr %s", code, errOut)
		}
	})
	t.Run("no manifest", func(t *testing.T) {
		code, _, errOut := runModels("", "check", t.TempDir())
		if code != 2 || !strings.Contains(errOut, "models.json not found") {
			t.Errorf("exit %d, stderr %s", code, errOut)
		}
	})
}
