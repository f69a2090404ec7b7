package onnxembed_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// bertTokenizer is the real BERT uncased WordPiece file beside the
// repository (../shared/data/tokenizers), else the repository's cut-down copy
// of it (models/testdata/README.md) on a machine without the shared data.
func bertTokenizer() string {
	if full, err := shareddata.Lookup("tokenizers", "bert_wordpiece_tokenizer.json"); err == nil {
		return full
	}
	return filepath.Join("..", "..", "..", "models", "testdata", "bert_wordpiece_small.json")
}

// tinyModels writes a models directory whose text_embed and dup_confirm
// roles are TinyBERT encoders (real export names, random weights) with the
// BERT tokenizer; the dup_confirm weights use another seed.
func tinyModels(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	tok, err := os.ReadFile(bertTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	confirm := onnxbuild.TinyBERT
	confirm.Seed = 2
	for role, cfg := range map[models.Role]onnxbuild.EncoderConfig{models.RoleTextEmbed: onnxbuild.TinyBERT, models.RoleDupConfirm: confirm} {
		sub := filepath.Join(dir, string(role))
		if err := onnxbuild.NewEncoder(cfg).WriteDir(sub); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), tok, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, _ := json.Marshal(map[string]any{"roles": map[string]any{
		"text_embed":  map[string]string{"dir": "text_embed", "pooling": "cls"},
		"dup_confirm": map[string]string{"dir": "dup_confirm", "pooling": "mean"},
	}})
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), m, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runtimeOrSkip loads ONNX Runtime ($VIDSCREEN_ORT_LIB or the repository's
// .cache) or skips the test, saying how to get it.
func runtimeOrSkip(t testing.TB) *models.Runtime {
	t.Helper()
	rt, err := models.NewRuntime(models.RuntimeOptions{})
	if err != nil {
		t.Skipf("ONNX Runtime not available (run make setup-ort, or set %s): %v", models.LibraryEnv, err)
	}
	return rt
}

func realTexts(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := harness.NewJSONLReader(f, "items.jsonl").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, it := range items[:min(n, len(items))] {
		texts = append(texts, textembed.ItemText(it), textembed.QuestionText(it))
	}
	return texts
}

func TestONNXRowsAreTheEncodersRows(t *testing.T) {
	t.Parallel()
	rt := runtimeOrSkip(t)
	dir := tinyModels(t)
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := onnxembed.OpenModels(rt, m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	if ms.Confirm == nil {
		t.Fatal("dup_confirm listed but not opened")
	}
	texts := append(realTexts(t, 6), "", " \n ")
	ctx := context.Background()
	for _, tt := range []struct {
		role models.Role
		emb  *onnxembed.ONNX
	}{{models.RoleTextEmbed, ms.Embed}, {models.RoleDupConfirm, ms.Confirm}} {
		t.Run(string(tt.role), func(t *testing.T) {
			enc, err := rt.OpenTextEncoder(m, tt.role, gpu.CPUDevice())
			if err != nil {
				t.Fatal(err)
			}
			defer enc.Session().Close()
			nonEmpty := texts[:len(texts)-2]
			want, err := enc.Embed(ctx, nonEmpty)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tt.emb.Embed(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows != len(texts) || got.Cols != enc.Dim() || tt.emb.Dim() != enc.Dim() || enc.Dim() != onnxbuild.TinyBERT.Hidden {
				t.Fatalf("%dx%d (Dim %d), want %dx%d", got.Rows, got.Cols, tt.emb.Dim(), len(texts), enc.Dim())
			}
			for i := range nonEmpty {
				var ss float64
				for k, v := range got.Row(i) {
					if v != want[i][k] {
						t.Fatalf("text %d column %d: %v, the encoder gives %v", i, k, v, want[i][k])
					}
					ss += float64(v) * float64(v)
				}
				if math.Abs(ss-1) > 1e-5 {
					t.Errorf("text %d: squared norm %v, want 1", i, ss)
				}
			}
			for i := len(nonEmpty); i < len(texts); i++ {
				for _, v := range got.Row(i) {
					if v != 0 {
						t.Fatalf("empty text %q: row %v, want zeros", texts[i], got.Row(i))
					}
				}
			}
			// Row i does not depend on the other texts of the call.
			one, err := tt.emb.Embed(ctx, texts[3:4])
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range one.Row(0) {
				if v != got.Row(3)[k] {
					t.Fatalf("text 3 alone differs at column %d: %v vs %v", k, v, got.Row(3)[k])
				}
			}
			// The name carries the model file's hash.
			b, err := os.ReadFile(filepath.Join(dir, string(tt.role), "model.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if name := tt.emb.Name(); !strings.Contains(name, "model.onnx=sha256:"+hex.EncodeToString(sum[:])[:16]) {
				t.Errorf("name %q lacks the model's hash", name)
			}
		})
	}
	if ms.Embed.Name() == ms.Confirm.Name() {
		t.Errorf("two different models share the name %q", ms.Embed.Name())
	}
}

func TestOpenModelsWithoutDupConfirm(t *testing.T) {
	t.Parallel()
	rt := runtimeOrSkip(t)
	dir := tinyModels(t)
	os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(`{"roles": {"text_embed": {"dir": "text_embed"}}}`), 0o644)
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := onnxembed.OpenModels(rt, m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	if ms.Confirm != nil {
		t.Error("a dup_confirm embedder without the role")
	}
	os.Remove(filepath.Join(dir, "text_embed", "model.onnx"))
	if _, err := onnxembed.OpenModels(rt, m, gpu.CPUDevice()); err == nil || !strings.Contains(err.Error(), "model.onnx") {
		t.Errorf("a missing model file: %v", err)
	}
}

// BenchmarkONNXEmbed embeds real question+options texts through the adapter
// with the TinyBERT text_embed model: tokenization, length-bucketed batches,
// ONNX Runtime on the CPU, pooling and the copy into a matrix. The model is
// tiny, so this measures the pipeline around the network rather than BGE's
// own cost.
func BenchmarkONNXEmbed(b *testing.B) {
	rt := runtimeOrSkip(b)
	m, err := models.LoadManifest(tinyModels(b))
	if err != nil {
		b.Fatal(err)
	}
	ms, err := onnxembed.OpenModels(rt, m, gpu.CPUDevice())
	if err != nil {
		b.Fatal(err)
	}
	defer ms.Close()
	var texts []string
	for _, it := range attacktest.LoadReal(b)[:512] {
		texts = append(texts, textembed.ItemText(it))
	}
	n := 0
	for b.Loop() {
		if _, err := ms.Embed.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}
