package predictions

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/vidscreen/vidscreen/harness"
)

// TestReadRefusesDamagedFiles: the --reference and --predictions files
// are read as exactly as import reads them (issue 33 §2.1, §2.3): a
// workbook whose sheet fails its CRC, and two records on one line of the
// project's layout, are refused naming the file.
func TestReadRefusesDamagedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := excelize.NewFile()
	for r, row := range [][]string{{"index", "video", "question", "A", "B", "answer", "prediction"}, {"0", "v.mp4", "q?", "x", "y", "A", "B"}} {
		for c, v := range row {
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			f.SetCellValue("Sheet1", cell, v)
		}
	}
	xlsx := filepath.Join(dir, "M", "M_Bench.xlsx")
	os.MkdirAll(filepath.Dir(xlsx), 0o755)
	if err := f.SaveAs(xlsx); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Flip one bit inside the sheet's compressed bytes.
	b, _ := os.ReadFile(xlsx)
	zr, err := zip.OpenReader(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range zr.File {
		if e.Name == "xl/worksheets/sheet1.xml" {
			off, _ := e.DataOffset()
			b[off+int64(e.CompressedSize64/2)] ^= 0x10
		}
	}
	zr.Close()
	flipped := filepath.Join(dir, "M", "M_Flipped.xlsx")
	os.WriteFile(flipped, b, 0o644)
	twice := filepath.Join(dir, "preds.jsonl")
	os.WriteFile(twice, []byte(`{"id": "a", "benchmark": "B", "pred": 0} {"id": "b", "benchmark": "B", "pred": 1}`+"\n"), 0o644)
	for _, tt := range []struct{ path, want string }{
		{flipped, "a damaged .xlsx workbook: entry xl/worksheets/sheet1.xml"},
		{twice, "preds.jsonl:1: not a JSON object: a second JSON value on the same line"},
	} {
		_, _, err := Read(context.Background(), tt.path)
		var pe *harness.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Read(%s) = %v; want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}
