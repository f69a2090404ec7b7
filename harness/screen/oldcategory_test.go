package screen

import (
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A screen.parquet written before duration_category has no such column:
// it reads with the category empty, as its items had none then.
func TestScreenWithoutDurationCategory(t *testing.T) {
	t.Parallel()
	type oldRow struct {
		ID        string `parquet:"id"`
		Benchmark string `parquet:"benchmark"`
		Video     string `parquet:"video"`
	}
	p := filepath.Join(t.TempDir(), "screen.parquet")
	if err := parquet.WriteFile(p, []oldRow{{"001-1", "videomme", "fFjv93ACGo8"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[Row](p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != "001-1" || rows[0].DurationCategory != "" {
		t.Errorf("rows %+v; want 001-1 with no category", rows)
	}
}
