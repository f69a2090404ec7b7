package formats

import (
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// checkRows holds what every reader promises of the rows it accepts, for
// the fuzz targets: each row locates itself, and an option index it gives
// is one of its options.
func checkRows(t *testing.T, rows []items.Row) {
	t.Helper()
	for i, r := range rows {
		if r.File == "" || (r.Line == 0 && r.Rec == 0) {
			t.Fatalf("row %d does not say where it is: %+v", i, r)
		}
		if r.Choice >= 0 && len(r.Options) > 0 && r.Choice >= len(r.Options) {
			t.Fatalf("row %d: choice %d of %d options", i, r.Choice, len(r.Options))
		}
		if r.GoldIndex < -1 {
			t.Fatalf("row %d: gold index %d", i, r.GoldIndex)
		}
	}
}
