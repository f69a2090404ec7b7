package models

import (
	"bytes"
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

func TestRuntimeLibraryErrorsNameTheFix(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts RuntimeOptions
		want []string
	}{
		{
			name: "the variable points nowhere",
			opts: RuntimeOptions{Getenv: func(string) string { return "/nonexistent/libonnxruntime.so" }},
			want: []string{"/nonexistent/libonnxruntime.so", "$VIDSCREEN_ORT_LIB", "make setup-ort"},
		},
		{
			name: "the variable names a directory",
			opts: RuntimeOptions{Getenv: func(string) string { return t.TempDir() }},
			want: []string{"is a directory", "VIDSCREEN_ORT_LIB"},
		},
		{
			name: "a bad device",
			opts: RuntimeOptions{Device: "tpu"},
			want: []string{`device "tpu"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRuntime(tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCUDAFallbackIsSaidOnce(t *testing.T) {
	_, dir := tinyModels(t)
	var log bytes.Buffer
	rt, err := NewRuntime(RuntimeOptions{Device: "cuda:0", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s, err := rt.NewSession(filepath.Join(dir, "bge", "model.onnx"), rt.Devices()[0], DynamicShapes)
		if err != nil {
			t.Fatal(err)
		}
		if s.Device() != CPU && rt.CUDAFailure() != nil {
			t.Fatalf("session on %s after a CUDA failure", s.Device())
		}
		s.Close()
	}
	if rt.CUDAFailure() == nil {
		t.Skip("the CUDA provider loaded: this machine has a GPU")
	}
	if n := strings.Count(log.String(), "\n"); n != 1 {
		t.Fatalf("fallback said %d times:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "cuda:0 unavailable, running on cpu") || !strings.Contains(log.String(), "libonnxruntime_providers_cuda.so") {
		t.Fatalf("fallback message does not name what is missing: %s", log.String())
	}
}

// TestCUDAOptionsKeepTheCallersAndTheDevice: the caller's provider options
// (use_tf32=0 for strict float32) reach the provider, the device's id wins
// over a caller's, and only variable shapes get the exact-growth arena.
func TestCUDAOptionsKeepTheCallersAndTheDevice(t *testing.T) {
	for _, tc := range []struct {
		name    string
		caller  map[string]string
		dev     Device
		profile ShapeProfile
		want    map[string]string
	}{
		{"none", nil, Device{CUDA: true, ID: 1}, FixedShapes, map[string]string{"device_id": "1"}},
		{"dynamic shapes", nil, Device{CUDA: true}, DynamicShapes, map[string]string{"device_id": "0", "arena_extend_strategy": "kSameAsRequested"}},
		{"strict float32", map[string]string{"use_tf32": "0"}, Device{CUDA: true, ID: 2}, FixedShapes, map[string]string{"device_id": "2", "use_tf32": "0"}},
		{"the device wins", map[string]string{"device_id": "5", "use_tf32": "1"}, Device{CUDA: true, ID: 0}, FixedShapes, map[string]string{"device_id": "0", "use_tf32": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := maps.Clone(tc.caller)
			r := &Runtime{cudaOpt: tc.caller}
			got := r.cudaOptions(tc.dev, tc.profile)
			if !maps.Equal(got, tc.want) {
				t.Errorf("options %v, want %v", got, tc.want)
			}
			if !maps.Equal(tc.caller, before) {
				t.Errorf("the caller's options became %v", tc.caller)
			}
		})
	}
}
