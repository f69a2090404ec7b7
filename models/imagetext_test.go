package models

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
)

// randomImages returns n images of c x size x size values in [-2, 2), about
// the range of CLIP-normalised pixels.
func randomImages(seed uint64, n, c, size int) ImageBatch {
	r := rand.New(rand.NewPCG(seed, 2))
	b := ImageBatch{N: n, C: c, H: size, W: size, Data: make([]float32, n*c*size*size)}
	for i := range b.Data {
		b.Data[i] = float32(4*r.Float64() - 2)
	}
	return b
}

func openImageText(t *testing.T) *ImageText {
	rt, dir := tinyModels(t)
	text, err := rt.NewSession(filepath.Join(dir, "clip", "text_model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	vision, err := rt.NewSession(filepath.Join(dir, "clip", "vision_model.onnx"), gpu.CPUDevice(), FixedShapes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { text.Close(); vision.Close() })
	m, err := NewImageText(text, vision, nil, RoleSpec{})
	if err != nil {
		t.Fatal(err)
	}
	m.MaxBatch = 4
	return m
}

func TestImageTextMatchesReference(t *testing.T) {
	m := openImageText(t)
	ctx := context.Background()
	ref := fixtures.clip
	imgs := randomImages(3, 9, 3, 32)
	iv, err := m.EmbedImages(ctx, imgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range imgs.N {
		closeTo(t, "image "+itoa(i), iv[i], unit32(ref.ImageEmbed(imgs.image(i))), 2e-5)
	}
	// CLIP text: <|startoftext|> 49406 ... <|endoftext|> 49407.
	seqs := randomIDs(5, 11, 2, 77, 256, 49000, 49406, 49407)
	tv, err := m.EmbedTextIDs(ctx, seqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		closeTo(t, "text "+itoa(i), tv[i], unit32(ref.TextEmbed(s)), 2e-5)
	}
	if m.Dim() != 16 || m.LogitScale() != 100 {
		t.Fatalf("Dim %d, LogitScale %g; want 16, 100", m.Dim(), m.LogitScale())
	}
	zs := m.ZeroShot(iv, tv)
	for i := range iv {
		var total float64
		for j := range tv {
			var dot float64
			for k := range iv[i] {
				dot += float64(iv[i][k]) * float64(tv[j][k])
			}
			if got, want := m.Logits(iv[i:i+1], tv[j:j+1])[0][0], 100*dot; math.Abs(got-want) > 1e-9 {
				t.Fatalf("logit %d,%d = %g, want %g", i, j, got, want)
			}
			total += math.Exp(zs[i][j])
		}
		if math.Abs(total-1) > 1e-9 {
			t.Fatalf("image %d: zero-shot probabilities sum to %g", i, total)
		}
	}
}

// TestImageTextPadsToMaxLength runs the text tower SigLIP's way, every text
// padded to max_length: the causal tower pools at the end token, so the
// vectors match the reference computed without padding.
func TestImageTextPadsToMaxLength(t *testing.T) {
	m := openImageText(t)
	m.padToMax, m.maxLen, m.pad = true, 77, 1
	seqs := randomIDs(6, 9, 2, 77, 256, 49000, 49406, 49407)
	got, err := m.EmbedTextIDs(context.Background(), seqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		closeTo(t, "text "+itoa(i), got[i], unit32(fixtures.clip.TextEmbed(s)), 2e-5)
	}
}

func TestImageTextRejectsWrongImageSize(t *testing.T) {
	m := openImageText(t)
	if _, err := m.EmbedImages(context.Background(), randomImages(1, 2, 3, 16)); err == nil {
		t.Fatal("16x16 images accepted by a 32x32 tower")
	}
	bad := randomImages(1, 2, 3, 32)
	bad.Data = bad.Data[1:]
	if _, err := m.EmbedImages(context.Background(), bad); err == nil {
		t.Fatal("short data accepted")
	}
}
