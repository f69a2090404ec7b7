package conformance

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// siglipTexts are texts for SigLIP's text tower: punctuation its
// normalizer removes, capitals, accents and emoji it has no piece for,
// runs of spaces, the empty text and a text longer than the 64 tokens it
// is truncated to.
var siglipTexts = []string{
	"a man playing the guitar",
	"A Man, Playing The GUITAR!!",
	"What does the woman do after she opens the door?",
	"the dog runs  away   from the ball",
	"café au lait é à ü",
	"a cat 🐈 on a table",
	"no\u00a0break\u3000ideographic\u2003em space",
	"",
	"   ",
	"(A) red (B) blue (C) green",
	"Why did the boy cry at the end of the video?",
	"x",
	strings.Repeat("the girl looks at the camera and smiles again ", 12),
	"1234567890",
	"tab\tand\nnewline",
}

// embedReply is js/embed.cjs's output.
type embedReply struct {
	IDs   [][]int     `json:"ids"`
	Text  [][]float32 `json:"text"`
	Image [][]float32 `json:"image"`
}

// writeSiglip writes the built SigLIP folder and a models.json naming it.
func writeSiglip(t *testing.T) (string, *onnxbuild.Siglip) {
	t.Helper()
	dir := t.TempDir()
	m := onnxbuild.NewSiglip(onnxbuild.TinySiglip)
	if err := m.WriteDir(filepath.Join(dir, "siglip")); err != nil {
		t.Fatal(err)
	}
	manifest := `{"roles": {"image_text": {"dir": "siglip", "logit_scale": 10, "logit_bias": -10}}}`
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, m
}

func openSiglip(t *testing.T, dir string) *models.ImageText {
	t.Helper()
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		unavailable(t, "ONNX Runtime: "+err.Error())
	}
	man, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close() })
	return it
}

// unitDiff returns the largest absolute difference and 1 - cosine between
// a (already unit) and b made unit.
func unitDiff(a, b []float32) (maxAbs, oneMinusCos float64) {
	var n float64
	for _, v := range b {
		n += float64(v) * float64(v)
	}
	n = math.Sqrt(n)
	var dot float64
	for i := range a {
		bv := float64(b[i]) / n
		dot += float64(a[i]) * bv
		maxAbs = math.Max(maxAbs, math.Abs(float64(a[i])-bv))
	}
	return maxAbs, 1 - dot
}

// TestSiglipAgainstTransformersJS loads the built SigLIP folder in vidscreen
// and in transformers.js (SiglipTextModel, SiglipVisionModel): the ids of
// the texts, padded to max_length 64 as SigLIP's processor pads them, are
// equal, and the unit text and image embeddings agree within 1e-4.
func TestSiglipAgainstTransformersJS(t *testing.T) {
	t.Parallel()
	dir, _ := writeSiglip(t)
	it := openSiglip(t, dir)
	ctx := context.Background()

	const n, size = 5, 32
	r := rand.New(rand.NewPCG(30, 2))
	px := make([]float32, n*3*size*size)
	for i := range px {
		px[i] = float32(2*r.Float64() - 1) // SigLIP's normalised range
	}
	ids, err := it.TextInputs(siglipTexts)
	if err != nil {
		t.Fatal(err)
	}
	// The towers read vidscreen's ids (input_ids), so that the model
	// outputs are compared on equal inputs; the reference's own ids are
	// compared below.
	var ref embedReply
	runJS(t, "embed.cjs", map[string]any{
		"dir": filepath.Join(dir, "siglip"), "text_class": "SiglipTextModel", "vision_class": "SiglipVisionModel",
		"output": "pooler_output", "texts": siglipTexts, "input_ids": ids,
		"tokenizer": map[string]any{"padding": "max_length", "max_length": 64, "truncation": true},
		"pixels":    map[string]any{"dims": []int{n, 3, size, size}, "data": px},
	}, &ref)
	if len(ref.IDs) != len(siglipTexts) || len(ref.Text) != len(siglipTexts) || len(ref.Image) != n {
		t.Fatalf("reference gave %d ids, %d text and %d image rows; want %d, %d, %d", len(ref.IDs), len(ref.Text), len(ref.Image), len(siglipTexts), len(siglipTexts), n)
	}
	for i := range siglipTexts {
		want := ref.IDs[i]
		if len(ids[i]) == 64 && len(want) == 64 && want[63] != 1 && ids[i][63] == 1 {
			// A text past max_length: HF tokenizers (Python and Rust)
			// truncate before adding </s>, keeping it last, as
			// vidscreen does; transformers.js 4.3.1 truncates after
			// and cuts it off. Equal up to the kept </s>.
			want = append(append([]int(nil), want[:63]...), 1)
		}
		if len(ids[i]) != 64 || !equalInts(ids[i], want) {
			t.Errorf("text %d %.40q: ids\n%v\nwant (transformers.js)\n%v", i, siglipTexts[i], ids[i], ref.IDs[i])
		}
	}
	tv, err := it.EmbedTexts(ctx, siglipTexts)
	if err != nil {
		t.Fatal(err)
	}
	iv, err := it.EmbedImages(ctx, models.ImageBatch{N: n, C: 3, H: size, W: size, Data: px})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-4
	check := func(kind string, got, want [][]float32) {
		var worstAbs, worstCos float64
		for i := range got {
			a, c := unitDiff(got[i], want[i])
			worstAbs, worstCos = math.Max(worstAbs, a), math.Max(worstCos, c)
			if a > tol || c > tol {
				t.Errorf("%s %d: max abs difference %.3g, 1-cos %.3g; want <= %g", kind, i, a, c, tol)
			}
		}
		t.Logf("siglip %s embeddings | transformers.js 4.3.1 %sModel | %d | max abs %.2g, 1-cos %.2g | %g", kind, map[string]string{"text": "SiglipText", "image": "SiglipVision"}[kind], len(got), worstAbs, worstCos, tol)
	}
	check("text", tv, ref.Text)
	check("image", iv, ref.Image)

	// Zero-shot: sigmoid(10 cos - 10) per pair from the reference's
	// vectors, against ZeroShot's log sigmoid.
	if !it.Sigmoid() {
		t.Fatal("a model_type siglip folder does not score zero-shot by sigmoid")
	}
	zs := it.ZeroShot(iv, tv)
	var worst float64
	for i := range iv {
		for j := range tv {
			var dot, ni, nt float64
			for k := range ref.Image[i] {
				dot += float64(ref.Image[i][k]) * float64(ref.Text[j][k])
				ni += float64(ref.Image[i][k]) * float64(ref.Image[i][k])
				nt += float64(ref.Text[j][k]) * float64(ref.Text[j][k])
			}
			want := 1 / (1 + math.Exp(-(10*dot/math.Sqrt(ni*nt) - 10)))
			got := math.Exp(zs[i][j])
			worst = math.Max(worst, math.Abs(got-want))
			if math.Abs(got-want) > 1e-4 {
				t.Errorf("zero-shot image %d text %d: sigmoid %.6f, reference %.6f", i, j, got, want)
			}
		}
	}
	t.Logf("siglip zero-shot sigmoid(10 cos - 10) | from transformers.js's pooler_output | %d pairs | %.2g | 0.0001", len(iv)*len(tv), worst)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSiglip2Lowercase: a model_type siglip2 folder whose tokenizer.json
// does not lowercase (Gemma's, as transformers 4.x saves it) is lowercased
// by vidscreen as transformers' Siglip2Tokenizer does; the reference is
// transformers.js's tokenizer on the texts lowercased by JavaScript (which
// lowercases character by character as the Rust normalizer does, İ to i
// and a combining dot included; the texts have no word-final capital
// sigma, which JavaScript alone makes final).
func TestSiglip2Lowercase(t *testing.T) {
	t.Parallel()
	dir, _ := writeSiglip(t)
	folder := filepath.Join(dir, "siglip")
	var tm map[string]any
	if err := json.Unmarshal(onnxbuild.SiglipTokenizerJSON(64), &tm); err != nil {
		t.Fatal(err)
	}
	norm := tm["normalizer"].(map[string]any)
	seq := norm["normalizers"].([]any)
	if seq[0].(map[string]any)["type"] != "Lowercase" {
		t.Fatal("the built tokenizer has no Lowercase normalizer to take out")
	}
	norm["normalizers"] = seq[1:]
	tb, err := json.Marshal(tm)
	if err != nil {
		t.Fatal(err)
	}
	tok := string(tb)
	for name, body := range map[string]string{
		"tokenizer.json":        tok,
		"config.json":           `{"model_type": "siglip2", "text_config": {"max_position_embeddings": 64}}`,
		"tokenizer_config.json": `{"tokenizer_class": "GemmaTokenizer", "pad_token": "</s>"}`,
	} {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	it := openSiglip(t, dir)
	texts := []string{"A Man Playing The GUITAR", "WHAT IS THE DOG DOING", "İSTANBUL İs Big", "ÀÉÎÕÜ Ça", "ΣΟΦΙΑ and Ωmega", "DŽungla Ǆ", "mixed CaSe 123 ABC"}
	ids, err := it.TextInputs(texts)
	if err != nil {
		t.Fatal(err)
	}
	var ref embedReply
	runJS(t, "embed.cjs", map[string]any{
		"dir": folder, "text_class": "SiglipTextModel", "texts": texts, "lowercase": true,
		"tokenizer": map[string]any{"padding": "max_length", "max_length": 64, "truncation": true},
	}, &ref)
	for i := range texts {
		if !equalInts(ids[i], ref.IDs[i]) {
			t.Errorf("%q: ids\n%v\nwant (transformers.js on the lowercased text)\n%v", texts[i], ids[i], ref.IDs[i])
		}
	}
	t.Logf("siglip2 lowercasing | transformers.js 4.3.1 tokenizer on toLowerCase | %d texts | ids equal", len(texts))
}
