package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditRefusesARunOfAnotherFormat resumes a run directory whose
// config.json names another format: it is refused before anything is
// read or written, saying which format it holds and what to do, never
// resumed or extended (its records and caches mean something else).
func TestAuditRefusesARunOfAnotherFormat(t *testing.T) {
	t.Parallel()
	items := realItems(t, 8)
	for _, old := range []string{"vidscreen-run/2", "vidscreen-run/1"} {
		t.Run(old, func(t *testing.T) {
			dir := t.TempDir()
			mustAudit(t, Options{Items: []string{items}, Out: dir, Seed: 1})
			p := filepath.Join(dir, rundir.ConfigFile)
			b, _ := os.ReadFile(p)
			stale := strings.Replace(string(b), `"format": "`+rundir.FormatVersion+`"`, `"format": "`+old+`"`, 1)
			if stale == string(b) {
				t.Fatalf("config.json has no format %s:\n%s", rundir.FormatVersion, b)
			}
			os.WriteFile(p, []byte(stale), 0o644)
			records, _ := os.ReadFile(filepath.Join(dir, rundir.RecordsFile))
			_, err := Audit(context.Background(), Options{Items: []string{items}, Out: dir, Seed: 1})
			var cm *rundir.ConfigMismatchError
			if !errors.As(err, &cm) || cm.Format == "" {
				t.Fatalf("resume of a %s run: %v; want a *rundir.ConfigMismatchError naming the format", old, err)
			}
			for _, want := range []string{old, rundir.FormatVersion, "another version of vidscreen", "new --out"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if got, _ := os.ReadFile(p); string(got) != stale {
				t.Errorf("config.json rewritten")
			}
			if got, _ := os.ReadFile(filepath.Join(dir, rundir.RecordsFile)); string(got) != string(records) {
				t.Errorf("records.log changed")
			}
		})
	}
}
