package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
)

func TestRoleSettings(t *testing.T) {
	tests := []struct {
		name string
		spec models.RoleSpec
		want string
	}{
		{"none set", models.RoleSpec{Dir: "cap"}, ""},
		{"where the files are is no setting", models.RoleSpec{Dir: "elsewhere", Tokenizer: "tok.json", Server: "http://x", ServerModel: "m"}, ""},
		{"nor is a served role's client tuning", models.RoleSpec{Server: "http://x", ServerModel: "m", ServerConcurrency: 64, ServerTimeoutS: 9, ServerAPIKeyEnv: "K", ServerAllowRemote: true, ServerRetries: new(int)}, ""},
		{"max_new_tokens", models.RoleSpec{Dir: "cap", MaxNewTokens: 12}, "max_new_tokens=12"},
		{"logit scale and length, in key order", models.RoleSpec{Dir: "it", MaxLength: 77, LogitScale: 100}, "logit_scale=100,max_length=77"},
		{"padding", models.RoleSpec{PadToMaxLength: true, PadID: 1}, "pad_id=1,pad_to_max_length=true"},
		{"letter variants", models.RoleSpec{LetterVariants: []string{"{L}", " ({L})"}}, `letter_variants=["{L}"," ({L})"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := models.RoleSettings(tc.spec)
			if err != nil || got != tc.want {
				t.Errorf("roleSettings = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestRoleSettingsAreConfiguration changes one setting of a role in
// models.json: the audit's config.json must change with it (it was
// byte-identical while the cards changed), and the run directory of the
// old setting, run again with the new one, must compute again the answers
// that read the changed model, and only those, to write what a fresh audit
// of the new setting writes. The captioner is read at the frame level only
// where a reader or text_embed reads its captions: models init's roles,
// not the world's.
func TestRoleSettingsAreConfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, role, field string
		value             any
		fixture           func(*testing.T) (string, string, string)
	}{
		{"image_text logit_scale", "image_text", "logit_scale", 30, worldFixture},
		{"captioner max_new_tokens", "captioner", "max_new_tokens", 4, videoFixture},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items, root, modelsDir := tc.fixture(t)
			tmp := t.TempDir()
			audit := func(modelsDir, out string) (int, string) {
				code, _, stderr := runAudit("--items", items, "--videos", root, "--models", modelsDir, "--levels", "option,frame", "--out", out, "--quiet")
				return code, stderr
			}
			base := filepath.Join(tmp, "base")
			if code, stderr := audit(modelsDir, base); code != 0 {
				t.Fatalf("audit: exit %d\n%s", code, stderr)
			}
			baseConfig, _ := os.ReadFile(filepath.Join(base, rundir.ConfigFile))
			manifest, err := os.ReadFile(filepath.Join(modelsDir, models.ManifestFile))
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]map[string]map[string]any
			if err := json.Unmarshal(manifest, &m); err != nil {
				t.Fatal(err)
			}
			m["roles"][tc.role][tc.field] = tc.value
			b, _ := json.Marshal(m)
			// The same model files under another manifest.
			dir := filepath.Join(tmp, "models")
			if err := os.CopyFS(dir, os.DirFS(modelsDir)); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, models.ManifestFile), b, 0o644)
			fresh := filepath.Join(tmp, "fresh")
			if code, stderr := audit(dir, fresh); code != 0 {
				t.Fatalf("audit: exit %d\n%s", code, stderr)
			}
			config, _ := os.ReadFile(filepath.Join(fresh, rundir.ConfigFile))
			if bytes.Equal(config, baseConfig) {
				t.Errorf("config.json did not change with %s's %s", tc.role, tc.field)
			}
			if want := fmt.Sprintf("%s=%v", tc.field, tc.value); !strings.Contains(string(config), want) {
				t.Errorf("config.json does not say %s:\n%s", want, config)
			}
			if code, stderr := audit(dir, base); code != 0 {
				t.Fatalf("the old setting's run directory with the new setting: exit %d\n%s", code, stderr)
			}
			sameRun(t, fresh, base, "between a fresh audit of the new setting and the old run given it")
			var info struct {
				Attackers []struct {
					Name     string `json:"name"`
					Level    string `json:"level"`
					Variants int    `json:"variants"`
				} `json:"attackers"`
			}
			raw, _ := os.ReadFile(filepath.Join(base, rundir.RunJSON))
			if err := json.Unmarshal(raw, &info); err != nil || len(info.Attackers) == 0 {
				t.Fatalf("run.json: %v\n%s", err, raw)
			}
			for _, at := range info.Attackers {
				if recomputed := at.Variants > 0; recomputed != (at.Level == "frame") {
					t.Errorf("%s (%s level): %d variants computed again after %s changed", at.Name, at.Level, at.Variants, tc.role)
				}
			}
		})
	}
}
