package completion

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write puts files into a fresh directory.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheck(t *testing.T) {
	t.Parallel()
	outputs := map[string]string{"config.json": "{}", "cards.json": `{"cards":[]}`, "items.parquet": "PAR1...PAR1"}
	tests := []struct {
		name   string
		change func(t *testing.T, dir string) // after Write
		want   string                         // in the error; "" for a finished run
	}{
		{"a finished run passes", func(*testing.T, string) {}, ""},
		{"a run whose record was removed is unfinished", func(t *testing.T, dir string) {
			if err := Remove(dir); err != nil {
				t.Fatal(err)
			}
		}, "no complete.json"},
		{"a missing output is refused", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "items.parquet"))
		}, "items.parquet is missing"},
		{"a rewritten output of another size is refused", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cards.json"), []byte(`{"cards":[1,2]}`), 0o644)
		}, "cards.json has 15 bytes, the record says 12"},
		{"a rewritten output of the same size is refused", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "cards.json"), []byte(`{"cards":[9]}`[:12]), 0o644)
		}, "cards.json differs from its SHA-256"},
		{"a record naming a path outside the run is refused", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, File), []byte(`{"vidscreen":"x","outputs":[{"name":"../x","bytes":0,"sha256":""}]}`), 0o644)
		}, `output "../x" is not a file name`},
		{"a torn record is refused", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, File), []byte(`{"vidscreen":`), 0o644)
		}, "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, outputs)
			if err := Write(dir, "test", []string{"items.parquet", "cards.json", "cards.json"}); err != nil {
				t.Fatal(err)
			}
			tt.change(t, dir)
			rec, err := Check(dir)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(rec.Outputs) != 2 || rec.Outputs[0].Name != "cards.json" || rec.Outputs[1].Bytes != int64(len(outputs["items.parquet"])) {
					t.Errorf("record %+v, want cards.json then items.parquet of %d bytes", rec.Outputs, len(outputs["items.parquet"]))
				}
				return
			}
			if !errors.Is(err, ErrUnfinished) {
				t.Fatalf("Check = %v, want an unfinished run", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "rerun the same audit command") {
				t.Errorf("error %q lacks %q and the fix", err, tt.want)
			}
		})
	}
}

// A directory that does not exist, or holds no audit at all, is reported as
// such, not as an unfinished audit.
func TestCheckWhatIsNoRun(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{filepath.Join(t.TempDir(), "nope"), t.TempDir()} {
		_, err := Check(dir)
		if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrUnfinished) {
			t.Errorf("Check(%s) = %v, want no run", dir, err)
		}
	}
}

// The record is a pure function of the outputs: written twice, it is the
// same bytes.
func TestWriteIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"a": "1", "b": "22"})
	var got [2][]byte
	for k := range got {
		if err := Write(dir, "v", []string{"b", "a"}); err != nil {
			t.Fatal(err)
		}
		got[k], _ = os.ReadFile(filepath.Join(dir, File))
	}
	if string(got[0]) != string(got[1]) {
		t.Errorf("two records differ:\n%s\n%s", got[0], got[1])
	}
}
