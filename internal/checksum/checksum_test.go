package checksum

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestVerify(t *testing.T) {
	data := []byte("the features of one video")
	tests := []struct {
		name string
		harm func(path string) // what happens to the files after Write
		want error             // nil, fs.ErrNotExist or ErrDamaged
	}{
		{"untouched", func(string) {}, nil},
		{"one byte flipped", func(p string) {
			b, _ := os.ReadFile(p)
			b[3] ^= 0x10
			os.WriteFile(p, b, 0o644)
		}, ErrDamaged},
		{"truncated", func(p string) { os.Truncate(p, 5) }, ErrDamaged},
		{"a byte appended", func(p string) {
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.Write([]byte{0})
			f.Close()
		}, ErrDamaged},
		{"checksum garbled", func(p string) { os.WriteFile(p+Ext, []byte("zz  x\n"), 0o644) }, ErrDamaged},
		{"checksum of another file", func(p string) {
			b, _ := os.ReadFile(p + Ext)
			os.WriteFile(p+Ext, append(b[:64:64], "  other.npy\n"...), 0o644)
		}, ErrDamaged},
		{"checksum missing (a write cut short)", func(p string) { os.Remove(p + Ext) }, fs.ErrNotExist},
		{"file missing", func(p string) { os.Remove(p) }, fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "video-1.npy")
			if err := Write(p, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				t.Fatal(err)
			}
			tc.harm(p)
			for name, err := range map[string]error{"Verify": Verify(p), "ReadFile": func() error { _, err := ReadFile(p); return err }()} {
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("%s: %v, want %v", name, err, tc.want)
				}
			}
		})
	}
}

func TestWriteReplacesTheChecksum(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	for _, s := range []string{"first", "second, longer"} {
		if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }); err != nil {
			t.Fatal(err)
		}
		b, err := ReadFile(p)
		if err != nil || string(b) != s {
			t.Fatalf("ReadFile = %q, %v; want %q", b, err, s)
		}
	}
}
