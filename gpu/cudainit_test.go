package gpu

import (
	"strings"
	"testing"
)

func TestInitCUDA(t *testing.T) {
	for _, tt := range []struct {
		name, lib string // lib: a testdata source to build, or a path
		want      string // "" for success, else a part of the error
	}{
		{"a driver that initialises", "fakecuda.c", ""},
		{"the toolkit's stub, which writes no error name", "stubcuda.c", "cuInit: unknown (CUresult 34)"},
		{"no library", "/nonexistent/libcuda.so.1", "cannot load /nonexistent/libcuda.so.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.lib
			if strings.HasSuffix(path, ".c") {
				path = buildFake(t, path)
			}
			err := InitCUDA(path)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("InitCUDA: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("InitCUDA = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
