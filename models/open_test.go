package models

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/letters"
)

// questions are real questions from ../shared/data (nextqa, star,
// socialiq2), so the tokenizer sees real text.
var questions = []string{
	"why did the boy pick up one present from the group of them and move to the sofa?",
	"What did the person do with the blanket?",
	"Which object was put down by the person?",
	"how does the man feel when the woman says she got the job?",
	"what is the baby doing",
	"Is the person holding a cup?",
}

// TestOpenRolesFromManifest opens every role through models.json, the real
// tokenizer files and the tiny models, and checks outputs against onnxbuild's
// direct computation on the tokenizer's ids.
func TestOpenRolesFromManifest(t *testing.T) {
	rt, dir := tinyModels(t)
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bertTok, err := LoadTokenizer(filepath.Join(dir, "bge", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("text_embed pools CLS and dup_confirm pools the mean", func(t *testing.T) {
		for _, tc := range []struct {
			role    Role
			pooling Pooling
		}{{RoleTextEmbed, PoolCLS}, {RoleDupConfirm, PoolMean}} {
			e, err := rt.OpenTextEncoder(m, tc.role, gpu.CPUDevice())
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Embed(ctx, questions)
			name := e.Name()
			e.Close()
			if want := map[Role]string{RoleTextEmbed: "bge:cls:max512", RoleDupConfirm: "mpnet:mean:max128"}[tc.role]; name != want {
				t.Errorf("Name() = %q, want %q", name, want)
			}
			if err != nil {
				t.Fatal(err)
			}
			ref := fixtures.bert
			if tc.role == RoleDupConfirm {
				ref = fixtures.mpnet
			}
			for i, q := range questions {
				ids, _ := bertTok.Encode(q, true)
				closeTo(t, string(tc.role)+" "+q, got[i], refPool(ref.Forward(ids, nil), tc.pooling), 2e-5)
			}
		}
	})

	t.Run("image_text embeds real CLIP token ids", func(t *testing.T) {
		it, err := rt.OpenImageText(m, gpu.CPUDevice())
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		clipTok, err := LoadTokenizer(filepath.Join(dir, "clip", "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := it.EmbedTexts(ctx, questions)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range questions {
			ids, _ := clipTok.Encode(q, true)
			closeTo(t, q, got[i], unit32(fixtures.clip.TextEmbed(ids)), 2e-5)
		}
	})

	t.Run("lm_reader scores letters of real prompts", func(t *testing.T) {
		ls, err := rt.OpenLetterScorer(m, gpu.CPUDevice())
		if err != nil {
			t.Fatal(err)
		}
		defer ls.Close()
		var prompts []letters.Prompt
		for _, q := range questions {
			prompts = append(prompts, letters.Prompt{Text: "Question: " + q + "\nA. yes\nB. no\nC. maybe\nAnswer:", Options: 3})
		}
		got, err := ls.Score(ctx, prompts)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range prompts {
			ids, _ := bertTok.Encode(p.Text, true)
			want := refLetters(ids, ls.letters, 3)
			for k := range want {
				if d := got[i][k] - want[k]; d > 1e-4 || d < -1e-4 {
					t.Fatalf("prompt %d letter %c: %g, want %g", i, 'A'+k, got[i][k], want[k])
				}
			}
		}
		// BERT's uncased vocabulary: "A" and " A" both become "a" (1037).
		if ids := ls.LetterIDs(); !slices.Equal(ids[0], []int{1037}) || !slices.Equal(ids[2], []int{1039}) {
			t.Fatalf("letter ids %v", ids[:3])
		}
	})

	t.Run("captioner decodes text with the tokenizer", func(t *testing.T) {
		c, err := rt.OpenCaptioner(m, gpu.CPUDevice())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.MaxNewTokens != 8 {
			t.Fatalf("max_new_tokens from the manifest: %d, want 8", c.MaxNewTokens)
		}
		imgs := randomImages(21, 2, 3, 32)
		got, err := c.Caption(ctx, imgs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range imgs.N {
			want := fixtures.capt.Generate(imgs.image(i), 8)
			if !slices.Equal(got[i].IDs, want) {
				t.Fatalf("image %d: %v, want %v", i, got[i].IDs, want)
			}
			if got[i].Text != bertTok.Decode(want) || strings.TrimSpace(got[i].Text) == "" {
				t.Fatalf("image %d: text %q, want %q", i, got[i].Text, bertTok.Decode(want))
			}
		}
	})

	t.Run("screen_reader opens a VLM folder as vlm_reader does", func(t *testing.T) {
		sm, err := ParseManifest(filepath.Join(dir, ManifestFile), []byte(`{"roles": {"screen_reader": {"dir": "vlm", "max_length": 120}}}`))
		if err != nil {
			t.Fatal(err)
		}
		s, err := rt.OpenVLMRole(sm, RoleScreenReader, gpu.CPUDevice())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		v, err := rt.OpenVLMReader(m, gpu.CPUDevice())
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		p := VLMPrompt{Text: "Frames: <image> Question: " + questions[0] + " A. yes B. no Answer:", Images: randomImages(23, 1, 3, 32), Options: 2}
		a, err := s.Score(ctx, []VLMPrompt{p})
		if err != nil {
			t.Fatal(err)
		}
		b, err := v.Score(ctx, []VLMPrompt{p})
		if err != nil || !slices.Equal(a[0], b[0]) {
			t.Errorf("screen_reader %v, vlm_reader %v (%v) on the same folder", a, b, err)
		}
		if _, err := rt.OpenVLMRole(sm, RoleLMReader, gpu.CPUDevice()); err == nil {
			t.Error("lm_reader opened as a VLM")
		}
	})

	t.Run("vlm_reader starts prompts with config.json's bos_token_id", func(t *testing.T) {
		v, err := rt.OpenVLMReader(m, gpu.CPUDevice())
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		frames := randomImages(22, 2, 3, 32)
		p := VLMPrompt{Text: "Frames: <image><image> Question: " + questions[0] + " A. yes B. no Answer:", Images: frames, Options: 2}
		got, err := v.Score(ctx, []VLMPrompt{p})
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(p.Text, ImagePlaceholder)
		ids := func(s string) []int { x, _ := bertTok.Encode(s, false); return x }
		logits := fixtures.vlm.Logits([]int{101}, ids(parts[0]), frames.image(0), frames.image(1), ids(parts[2]))
		want := v.letters.score(logits.Row(logits.Rows-1), 2)
		for k := range want {
			if d := got[0][k] - want[k]; d > 1e-4 || d < -1e-4 {
				t.Fatalf("letter %c: %g, want %g", 'A'+k, got[0][k], want[k])
			}
		}
	})
}

func TestOpenMissingRoleNamesFiles(t *testing.T) {
	rt, _ := tinyModels(t)
	m := &Manifest{Dir: t.TempDir(), Roles: map[Role]RoleSpec{}}
	_, err := rt.OpenCaptioner(m, gpu.CPUDevice())
	if err == nil || !strings.Contains(err.Error(), "encoder_model.onnx, decoder_model_merged.onnx or decoder_with_past_model.onnx") {
		t.Fatalf("error %v does not name the captioner's files", err)
	}
}
