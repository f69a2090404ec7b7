package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditRecomputesADamagedEmbeddingFile flips one byte of each cached
// embedding matrix of a finished run and runs it again: every file must be
// found damaged by its checksum, computed again and reported, and the
// outputs must be the undamaged run's.
func TestAuditRecomputesADamagedEmbeddingFile(t *testing.T) {
	t.Parallel()
	items := realItems(t, 12)
	dir, ref := t.TempDir(), t.TempDir()
	mustAudit(t, Options{Items: []string{items}, Out: ref, Seed: 3})
	mustAudit(t, Options{Items: []string{items}, Out: dir, Seed: 3})
	npys, _ := filepath.Glob(filepath.Join(dir, rundir.CacheDir, "*.npy"))
	if len(npys) == 0 {
		t.Fatal("no embedding matrix in the cache")
	}
	for _, p := range npys {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-1] ^= 0x40 // the sign and exponent of the last value
		os.WriteFile(p, b, 0o644)
	}
	res := mustAudit(t, Options{Items: []string{items}, Out: dir, Seed: 3})
	if len(res.CacheDamaged) != len(npys) {
		t.Errorf("%d damaged files reported, want %d: %q", len(res.CacheDamaged), len(npys), res.CacheDamaged)
	}
	for _, p := range npys {
		if !strings.Contains(strings.Join(res.CacheDamaged, "\n"), filepath.Base(p)) {
			t.Errorf("%s not reported damaged", filepath.Base(p))
		}
	}
	sameOutputs(t, ref, dir)
	// Computed again, the files are whole: a third run finds no damage.
	if res := mustAudit(t, Options{Items: []string{items}, Out: dir, Seed: 3}); len(res.CacheDamaged) != 0 {
		t.Errorf("third run: %q damaged", res.CacheDamaged)
	}
}
