package completion

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSaysAnEditedOutputChanged: an output edited after the audit
// finished is said to have changed, not that the audit did not finish
// (issue 33 §2.7); the record's hash names the audit, and changes with
// the record.
func TestCheckSaysAnEditedOutputChanged(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"config.json": "{}", "cards.json": `{"cards":[]}`})
	if err := Write(dir, "test", []string{"cards.json"}); err != nil {
		t.Fatal(err)
	}
	rec, err := Check(dir)
	if err != nil || !strings.HasPrefix(rec.Hash(), "sha256:") || len(rec.Hash()) != len("sha256:")+64 {
		t.Fatalf("Check = %+v, %v; want a record with its hash", rec, err)
	}
	if err := Write(dir, "other", []string{"cards.json"}); err != nil {
		t.Fatal(err)
	}
	if again, err := Check(dir); err != nil || again.Hash() == rec.Hash() {
		t.Errorf("another record, the same hash %s (%v)", rec.Hash(), err)
	}
	os.WriteFile(filepath.Join(dir, "cards.json"), []byte(`{"cards":[7]}`), 0o644)
	_, err = Check(dir)
	if err == nil || !strings.Contains(err.Error(), "an output changed after the audit finished (cards.json has 13 bytes") || strings.Contains(err.Error(), "did not finish") {
		t.Errorf("Check of an edited output = %v", err)
	}
}
