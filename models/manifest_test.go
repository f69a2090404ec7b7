package models

import (
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, json string
		wantErr    string // "" for success
	}{
		{name: "a valid manifest", json: tinyManifest},
		{name: "a served reader needs no folder", json: `{"roles": {"lm_reader": {"server": "http://localhost:8000/v1", "server_model": "qwen"}}}`},
		{name: "an unknown role", json: `{"roles": {"image_txt": {"dir": "clip"}}}`, wantErr: "roles.image_txt: unknown role"},
		{name: "a misspelt field", json: `{"roles": {"text_embed": {"dir": "bge", "poling": "cls"}}}`, wantErr: `unknown field "poling"`},
		{name: "a bad pooling", json: "{\"roles\": {\n\"text_embed\": {\"dir\": \"bge\", \"pooling\": \"max\"}}}", wantErr: `line 2: roles.text_embed.pooling: "max" is not cls or mean`},
		{name: "pooling on a role that does not pool", json: `{"roles": {"captioner": {"dir": "c", "pooling": "mean"}}}`, wantErr: "only text_embed and dup_confirm pool"},
		{name: "no folder", json: `{"roles": {"text_embed": {"pooling": "cls"}}}`, wantErr: "dir: missing (the folder holding model.onnx, tokenizer.json)"},
		{name: "a server for an encoder", json: `{"roles": {"text_embed": {"server": "http://localhost:1"}}}`, wantErr: "text_embed cannot be served"},
		{name: "SigLIP-style fixed padding", json: `{"roles": {"image_text": {"dir": "siglip", "max_length": 64, "pad_to_max_length": true, "pad_id": 1}}}`},
		{name: "fixed padding without a length", json: `{"roles": {"image_text": {"dir": "siglip", "pad_to_max_length": true}}}`, wantErr: "pad_to_max_length: only for image_text, with max_length set"},
		{name: "a letter variant without {L}", json: `{"roles": {"lm_reader": {"dir": "lm", "letter_variants": ["A"]}}}`, wantErr: `"A" has no {L}`},
		{name: "a syntax error names its line", json: "{\"roles\": {\n\"lm_reader\": {\"dir\": \"lm\",}}}", wantErr: "models.json: line 2"},
		{name: "a wrong type names the field", json: `{"roles": {"lm_reader": {"dir": "lm", "max_length": "long"}}}`, wantErr: "field roles.lm_reader.max_length: want int, got JSON string"},
		{name: "a role as a list of entries", json: `{"roles": {"lm_reader": [{"dir": "lm"}, {"server": "http://localhost:8000/v1", "server_model": "qwen"}]}}`},
		{name: "the screening VLM, served", json: `{"roles": {"screen_reader": {"server": "http://localhost:8000/v1", "server_model": "smolvlm"}}}`},
		{name: "an empty list", json: "{\"roles\": {\n\"lm_reader\": []}}", wantErr: "line 2: roles.lm_reader: an empty list"},
		{name: "a bad entry of a list names its index", json: `{"roles": {"lm_reader": [{"dir": "lm"}, {"dir": "lm2", "letter_variants": ["A"]}]}}`, wantErr: `roles.lm_reader[1].letter_variants: "A" has no {L}`},
		{name: "a misspelt field in a list names its index", json: `{"roles": {"vlm_reader": [{"dir": "v"}, {"dri": "w"}]}}`, wantErr: `roles.vlm_reader[1]: json: unknown field "dri"`},
		{name: "a list of something else", json: `{"roles": {"lm_reader": ["lm"]}}`, wantErr: "roles.lm_reader"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest("/models/models.json", []byte(tc.json))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Roles) == 0 {
					t.Fatal("no roles")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestManifestRoleLists: a role given as a list keeps its first entry as
// the role (what the attackers open) and the rest, in order, as Extra; a
// role given as one object has that entry alone.
func TestManifestRoleLists(t *testing.T) {
	t.Parallel()
	m, err := ParseManifest("/models/models.json", []byte(`{"roles": {
		"lm_reader": [{"dir": "qwen"}, {"dir": "llama", "max_length": 512}, {"server": "http://localhost:8000/v1", "server_model": "mistral"}],
		"vlm_reader": {"dir": "smolvlm"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	dir, spec, err := m.Folder(RoleLMReader)
	if err != nil || dir != "/models/qwen" || spec.Dir != "qwen" {
		t.Errorf("Folder(lm_reader) = %q, %+v, %v; want the first entry", dir, spec, err)
	}
	var got []string
	for _, e := range m.Entries(RoleLMReader) {
		got = append(got, e.Dir+e.ServerModel)
	}
	if strings.Join(got, ",") != "qwen,llama,mistral" {
		t.Errorf("lm_reader entries %v", got)
	}
	if e := m.Entries(RoleVLMReader); len(e) != 1 || e[0].Dir != "smolvlm" {
		t.Errorf("vlm_reader entries %+v", e)
	}
	if e := m.Entries(RoleScreenReader); e != nil {
		t.Errorf("screen_reader entries %+v of a manifest without it", e)
	}
	// Entry(role, k) opens entry k as the role, the others untouched.
	e1 := m.Entry(RoleLMReader, 1)
	if dir, spec, err := e1.Folder(RoleLMReader); err != nil || dir != "/models/llama" || spec.MaxLength != 512 {
		t.Errorf("Entry(lm_reader, 1).Folder = %q, %+v, %v; want the second entry", dir, spec, err)
	}
	if dir, _, _ := e1.Folder(RoleVLMReader); dir != "/models/smolvlm" {
		t.Errorf("Entry(lm_reader, 1) changed vlm_reader: %q", dir)
	}
	if dir, _, _ := m.Folder(RoleLMReader); dir != "/models/qwen" {
		t.Errorf("Entry changed the manifest it came from: lm_reader %q", dir)
	}
	if m.Entry(RoleLMReader, 3) != nil || m.Entry(RoleScreenReader, 0) != nil {
		t.Errorf("Entry of an entry a role lacks is not nil")
	}
}
