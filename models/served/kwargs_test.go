package served

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestChatTemplateKwargsReachTheServer: a role whose manifest entry sets
// server_chat_template_kwargs sends them, canonical, in every request body
// (the readers' letter questions and the captioner's generations), names
// them in its Name (a cache key: they change what the model reads) and its
// Stats; a role without them sends no such field and keeps its name.
func TestChatTemplateKwargsReachTheServer(t *testing.T) {
	t.Parallel()
	m, err := models.ParseManifest("/models/models.json", []byte(`{"roles": {
		"lm_reader": {"server": "http://127.0.0.1:8000/v1", "server_model": "test-model", "server_chat_template_kwargs": {"enable_thinking": false, "a": 1}},
		"captioner": {"server": "http://127.0.0.1:8000/v1", "server_model": "test-model", "server_chat_template_kwargs": {"enable_thinking": false}},
		"vlm_reader": {"server": "http://127.0.0.1:8000/v1", "server_model": "test-model"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role models.Role
		want string // the field as the body carries it; "" for none
	}{
		{models.RoleLMReader, `"chat_template_kwargs":{"a":1,"enable_thinking":false}`},
		{models.RoleCaptioner, `"chat_template_kwargs":{"enable_thinking":false}`},
		{models.RoleVLMReader, ""},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
				if r.MaxTokens > 1 {
					return openaitest.Reply{Text: "a frame"}
				}
				return favourRight(r)
			}})
			defer srv.Close()
			s := m.Roles[tc.role].ServerSettings()
			s.URL = srv.BaseURL()
			cfg := Config{Role: string(tc.role), Server: s}
			var st *Stats
			ctx := context.Background()
			frames := []imageprep.Frame{frame(64, 48, 10)}
			switch tc.role {
			case models.RoleLMReader:
				l, err := NewLetters(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := l.Score(ctx, []letters.Prompt{prompt(1, 3, "q", "")}); err != nil {
					t.Fatal(err)
				}
				st = l.Stats()
			case models.RoleCaptioner:
				c, err := NewCaptioner(cfg, 16, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.CaptionFrames(ctx, frames); err != nil {
					t.Fatal(err)
				}
				st = c.Stats()
			default:
				v, err := NewVLM(cfg)
				if err != nil {
					t.Fatal(err)
				}
				b, err := v.Frames(ctx, frames)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := v.Score(ctx, []models.VLMPrompt{vprompt(b, 0, 2, "q")}); err != nil {
					t.Fatal(err)
				}
				st = v.Stats()
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("the server was asked nothing")
			}
			for _, r := range reqs {
				has := bytes.Contains(r.Body, []byte(`"chat_template_kwargs"`))
				if tc.want == "" && has || tc.want != "" && !bytes.Contains(r.Body, []byte(tc.want)) {
					t.Errorf("request body %s\nwant the field %q", r.Body, tc.want)
				}
			}
			kw := strings.TrimPrefix(tc.want, `"chat_template_kwargs":`)
			name := Name(string(tc.role), s)
			if got := st.Snapshot().ChatTemplateKwargs; got != kw {
				t.Errorf("Stats' chat_template_kwargs %q, want %q", got, kw)
			}
			if kw != "" && !strings.HasSuffix(name, ":chat_template_kwargs="+kw) || kw == "" && strings.Contains(name, "chat_template_kwargs") {
				t.Errorf("Name %q does not say the arguments %q", name, kw)
			}
		})
	}
}
