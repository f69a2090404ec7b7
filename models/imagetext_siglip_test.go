package models

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// writeSiglipDir writes the built SigLIP folder as dir/siglip and a
// manifest whose image_text entry is entry.
func writeSiglipDir(t *testing.T, entry string) (string, *onnxbuild.Siglip) {
	t.Helper()
	dir := t.TempDir()
	m := onnxbuild.NewSiglip(onnxbuild.TinySiglip)
	if err := m.WriteDir(filepath.Join(dir, "siglip")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ManifestFile), `{"roles": {"image_text": `+entry+`}}`)
	return dir, m
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openSiglip(t *testing.T, dir string) (*ImageText, error) {
	t.Helper()
	rt, _ := tinyModels(t)
	man, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, gpu.CPUDevice())
	if err == nil {
		t.Cleanup(func() { it.Close() })
	}
	return it, err
}

// TestSiglipTextPaddedToMaxLength opens the built SigLIP export (onnx/
// layout, pooler_output, no attention_mask): texts reach the tower padded
// with </s> to 64 tokens as the tokenizer file says, and the embeddings are
// the Go reference's on those 64 ids, which differ from the unpadded ones.
func TestSiglipTextPaddedToMaxLength(t *testing.T) {
	t.Parallel()
	dir, ref := writeSiglipDir(t, `{"dir": "siglip", "logit_scale": 10, "logit_bias": -10}`)
	it, err := openSiglip(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a man playing the guitar", "What is the dog doing?", strings.Repeat("the boy runs ", 40)}
	ids, err := it.TextInputs(texts)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := it.EmbedTexts(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range ids {
		if len(row) != 64 || row[63] != 1 {
			t.Fatalf("text %d: %d ids ending %d; want 64 ending with </s> (1)", i, len(row), row[len(row)-1])
		}
		closeTo(t, "text "+itoa(i), vecs[i], unit32(ref.TextEmbed(row)), 2e-5)
		n := 0
		for n < len(row) && !(row[n] == 1) {
			n++
		}
		if diff := maxAbsDiff(vecs[i], unit32(ref.TextEmbed(row[:n+1]))); i < 2 && diff < 1e-3 {
			t.Errorf("text %d: the unpadded text embeds within %g of the padded one; the test cannot tell padding", i, diff)
		}
	}
	if !it.Sigmoid() || it.LogitScale() != 10 || it.LogitBias() != -10 {
		t.Errorf("Sigmoid %v, scale %g, bias %g; want true, 10, -10", it.Sigmoid(), it.LogitScale(), it.LogitBias())
	}
}

func maxAbsDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

// TestImageTextSpecFromFolder: what the folder's config.json,
// tokenizer_config.json and tokenizer file decide, and the manifest
// overriding them.
func TestImageTextSpecFromFolder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		entry      string
		config     string // config.json ("" keeps the built one)
		tokCfg     string // tokenizer_config.json ("" keeps the built one)
		noFilePad  bool   // strip the tokenizer file's padding
		wantErr    string
		wantLen    int
		wantPad    int
		wantLeft   bool
		wantSig    bool
		probeUpper bool // "A MAN" must encode as "a man"
	}{
		{name: "siglip export as built (do_lower_case)", entry: `{"dir": "siglip", "logit_scale": 10, "logit_bias": -10}`, wantLen: 64, wantPad: 1, wantSig: true, probeUpper: true},
		{name: "manifest says softmax", entry: `{"dir": "siglip", "zero_shot": "softmax"}`, wantLen: 64, wantPad: 1, probeUpper: true},
		{name: "siglip with do_lower_case false", entry: `{"dir": "siglip", "logit_scale": 10}`, tokCfg: `{"tokenizer_class": "SiglipTokenizer", "do_lower_case": false}`, wantLen: 64, wantPad: 1, wantSig: true},
		{name: "sigmoid without a scale", entry: `{"dir": "siglip"}`, wantErr: "roles.image_text.logit_scale: missing"},
		{name: "no file padding: from config and tokenizer_config", entry: `{"dir": "siglip", "logit_scale": 10}`, noFilePad: true,
			config: `{"model_type": "siglip", "text_config": {"max_position_embeddings": 64}}`, tokCfg: `{"pad_token": {"content": "<pad>"}, "padding_side": "left"}`,
			wantLen: 64, wantPad: 0, wantLeft: true, wantSig: true},
		{name: "no file padding: pad id from text_config", entry: `{"dir": "siglip", "logit_scale": 10}`, noFilePad: true,
			config: `{"model_type": "siglip", "text_config": {"pad_token_id": 2}}`, tokCfg: `{}`, wantLen: 64, wantPad: 2, wantSig: true},
		{name: "siglip2 lowercases", entry: `{"dir": "siglip", "logit_scale": 10}`, config: `{"model_type": "siglip2"}`,
			wantLen: 64, wantPad: 1, wantSig: true, probeUpper: true},
		{name: "manifest lowercase", entry: `{"dir": "siglip", "lowercase": true, "zero_shot": "softmax"}`, config: `{"model_type": "clip"}`,
			wantLen: 64, wantPad: 1, probeUpper: true},
		{name: "manifest padding wins", entry: `{"dir": "siglip", "logit_scale": 10, "max_length": 16, "pad_to_max_length": true, "pad_id": 0}`,
			wantLen: 16, wantPad: 0, wantSig: true, probeUpper: true},
		{name: "bad padding_side", entry: `{"dir": "siglip", "logit_scale": 10}`, tokCfg: `{"padding_side": "middle"}`, wantErr: "tokenizer_config.json: padding_side"},
		{name: "model_type not a string", entry: `{"dir": "siglip", "logit_scale": 10}`, config: `{"model_type": 3}`, wantErr: "config.json: field model_type"},
		{name: "unknown pad token", entry: `{"dir": "siglip", "logit_scale": 10}`, noFilePad: true, config: `{"model_type": "siglip"}`, tokCfg: `{"pad_token": "<nope>"}`,
			wantErr: `pad_token "<nope>" is not in the tokenizer's vocabulary`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, _ := writeSiglipDir(t, c.entry)
			folder := filepath.Join(dir, "siglip")
			if c.config != "" {
				writeFile(t, filepath.Join(folder, "config.json"), c.config)
			}
			if c.tokCfg != "" {
				writeFile(t, filepath.Join(folder, "tokenizer_config.json"), c.tokCfg)
			}
			// The file's own Lowercase is taken out, so that "A MAN" shows
			// whether the loader lowercases.
			writeFile(t, filepath.Join(folder, "tokenizer.json"), builtTokenizer(t, func(m map[string]any) {
				noLowercase(m)
				if c.noFilePad {
					noPadding(m)
				}
			}))
			it, err := openSiglip(t, dir)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v; want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if it.maxLen != c.wantLen || !it.padToMax || it.pad != c.wantPad || it.padLeft != c.wantLeft || it.sigmoid != c.wantSig {
				t.Errorf("maxLen %d padToMax %v pad %d left %v sigmoid %v; want %d true %d %v %v", it.maxLen, it.padToMax, it.pad, it.padLeft, it.sigmoid, c.wantLen, c.wantPad, c.wantLeft, c.wantSig)
			}
			ids, err := it.TextInputs([]string{"A MAN", "a man"})
			if err != nil {
				t.Fatal(err)
			}
			if same := equalIDs(ids[0], ids[1]); same != c.probeUpper {
				t.Errorf("\"A MAN\" %v and \"a man\" %v: equal %v, want %v", ids[0], ids[1], same, c.probeUpper)
			}
			if c.wantLeft && ids[1][len(ids[1])-1] != 1 {
				t.Errorf("left padding: %v does not end with </s>", ids[1])
			}
		})
	}
}

func equalIDs(a, b []int) bool {
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

// builtTokenizer returns the built SigLIP tokenizer.json with edit applied
// to its decoded object.
func builtTokenizer(t *testing.T, edit func(map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(onnxbuild.SiglipTokenizerJSON(64), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noPadding removes the file's padding and truncation.
func noPadding(m map[string]any) { delete(m, "padding"); delete(m, "truncation") }

// noLowercase removes the Lowercase normalizer (the first).
func noLowercase(m map[string]any) {
	n := m["normalizer"].(map[string]any)
	n["normalizers"] = n["normalizers"].([]any)[1:]
}

// TestSiglipZeroShotIsSigmoid: SigLIP's scores are log sigmoid(scale cos +
// bias) per pair and need not sum to one; CLIP's are a softmax over texts.
func TestSiglipZeroShotIsSigmoid(t *testing.T) {
	t.Parallel()
	img := [][]float32{{1, 0}}
	texts := [][]float32{{1, 0}, {0, 1}, {0.6, 0.8}}
	for _, sig := range []bool{false, true} {
		m := &ImageText{scale: 10, bias: -5, sigmoid: sig}
		zs := m.ZeroShot(img, texts)[0]
		var sum float64
		for j, tv := range texts {
			logit := 10*float64(tv[0]) - 5
			if sig {
				if want := 1 / (1 + math.Exp(-logit)); math.Abs(math.Exp(zs[j])-want) > 1e-12 {
					t.Errorf("sigmoid text %d: %g, want %g", j, math.Exp(zs[j]), want)
				}
			}
			sum += math.Exp(zs[j])
		}
		if !sig && math.Abs(sum-1) > 1e-12 {
			t.Errorf("softmax scores sum to %g", sum)
		}
		if sig && math.Abs(sum-1) < 1e-3 {
			t.Errorf("sigmoid scores sum to %g: not independent", sum)
		}
	}
	v := []float64{-800, 800, 0}
	LogSigmoid(v)
	if v[0] != -800 || v[1] != 0 || math.Abs(v[2]-math.Log(0.5)) > 1e-15 {
		t.Errorf("LogSigmoid(-800, 800, 0) = %v; want -800, 0, log 0.5", v)
	}
}

// TestSlowTokenizerHint: a folder with a SentencePiece model other than
// spiece.model (Gemma's tokenizer.model) and no tokenizer.json is refused
// with how to make one.
func TestSlowTokenizerHint(t *testing.T) {
	t.Parallel()
	dir, _ := writeSiglipDir(t, `{"dir": "siglip", "logit_scale": 10}`)
	folder := filepath.Join(dir, "siglip")
	if err := os.Remove(filepath.Join(folder, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(folder, "tokenizer.model"), "not read")
	_, err := openSiglip(t, dir)
	if err == nil || !strings.Contains(err.Error(), "tokenizer.model, a slow (SentencePiece) tokenizer") || !strings.Contains(err.Error(), "vidscreen models tokenize") {
		t.Fatalf("error %v; want the slow-tokenizer hint", err)
	}
}

// TestSiglipBoundTowerReadsPoolerOutput: the bound vision tower (the GPU
// frame path's, here on the CPU) binds the export's own output name,
// pooler_output, and gives EmbedImages' vectors bit for bit.
func TestSiglipBoundTowerReadsPoolerOutput(t *testing.T) {
	t.Parallel()
	dir, _ := writeSiglipDir(t, `{"dir": "siglip", "logit_scale": 10, "logit_bias": -10}`)
	it, err := openSiglip(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := tinyModels(t)
	bt, err := it.OpenBoundTower(rt, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer bt.Close()
	imgs := randomImages(8, 3, 3, 32)
	got, err := bt.EmbedHost(context.Background(), imgs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := it.EmbedImages(context.Background(), imgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if maxAbsDiff(got[i], want[i]) != 0 {
			t.Errorf("image %d: bound tower differs from EmbedImages by %g", i, maxAbsDiff(got[i], want[i]))
		}
	}
}
