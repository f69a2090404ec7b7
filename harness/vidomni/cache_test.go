package vidomni

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/models"
)

func TestFrameCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	os.WriteFile(filepath.Join(model, "vision_model.onnx"), []byte("weights"), 0o644)
	id, err := models.RoleName(models.RoleImageText, model, models.RoleSpec{})
	if err != nil {
		t.Fatal(err)
	}
	c := &FrameCache{Dir: filepath.Join(dir, "cache"), Model: id}
	emb := [][]float32{{0.6, 0.8}, {1, 0}, {0, -1}}
	if err := c.store("k1", emb); err != nil {
		t.Fatal(err)
	}
	got := c.load("k1")
	if len(got) != 3 || !slices.Equal(got[0], emb[0]) || !slices.Equal(got[2], emb[2]) || c.Hits != 1 || c.Stored != 1 {
		t.Fatalf("round trip: %v (hits %d, stored %d)", got, c.Hits, c.Stored)
	}
	if c.load("absent") != nil {
		t.Error("an absent entry loaded")
	}
	os.WriteFile(c.path("bad"), []byte("\x93NUMPY garbage"), 0o644)
	if c.load("bad") != nil {
		t.Error("a damaged entry loaded; it must be computed again")
	}
}
