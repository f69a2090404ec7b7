package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/release"
)

// TestSelectDeviceSearches runs select with --device cuda:0 at 1 and 3
// workers: in bin/vidscreen (no GPU kernels), or where no GPU opens, its
// searches run on the CPU after one line saying why; in bin/vidscreen-cuda
// on a GPU they run there, said in one line naming it and the cut. The
// release is the CPU's bytes either way. Bad --device, --precision and
// --offload-min-work values are usage errors.
func TestSelectDeviceSearches(t *testing.T) {
	items := demoSubset(t, 40)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if code, _, stderr := runAudit("--items", items, "--out", run, "--seed", "4", "--cross-pool", "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd("screen", run); code != 0 {
		t.Fatalf("screen: exit %d: %s", code, stderr)
	}
	sel := func(name string, args ...string) string {
		t.Helper()
		code, _, stderr := runCmd(append([]string{"select", run, "--out", filepath.Join(dir, name), "--budget", "16", "--seed", "3", "--accept-residual"}, args...)...)
		if code != 0 {
			t.Fatalf("select %v: exit %d: %s", args, code, stderr)
		}
		return stderr
	}
	if stderr := sel("cpu", "--workers", "1"); stderr != "" {
		t.Errorf("--device cpu wrote to stderr: %q", stderr)
	}
	for _, tt := range []struct {
		device  string
		workers int
		extra   []string
	}{
		{"cuda:0", 1, nil},
		{"cuda:0", 3, nil},
		{"cuda", 3, []string{"--precision", "tf32", "--offload-min-work", "1"}},
	} {
		name := fmt.Sprintf("%s_w%d_%d", strings.ReplaceAll(tt.device, ":", "_"), tt.workers, len(tt.extra))
		t.Run(name, func(t *testing.T) {
			stderr := sel(name, append([]string{"--device", tt.device, "--workers", fmt.Sprint(tt.workers)}, tt.extra...)...)
			onGPU := strings.HasPrefix(stderr, "vidscreen select: searching on ") && hasGPUKernels
			if strings.Count(stderr, "\n") != 1 || (!onGPU && (!strings.Contains(stderr, "--device "+tt.device+": ") || !strings.HasSuffix(stderr, "; searching on the CPU\n"))) {
				t.Errorf("stderr %q: want one line naming --device %s and saying the searches run on the CPU (or the GPU they run on)", stderr, tt.device)
			}
			for _, f := range []string{release.ItemsFile, release.LockfileFile, release.ReportMarkdown, release.ReportHTML} {
				want, err := os.ReadFile(filepath.Join(dir, "cpu", f))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(dir, name, f))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the CPU run's", f)
				}
			}
			t.Logf("stderr: %q", stderr)
		})
	}
	for _, bad := range [][]string{
		{"--device", "gpu"},
		{"--device", "cuda:0", "--precision", "bf17"},
		{"--offload-min-work", "0"},
		{"--device", "cuda:0", "--offload-min-work", "-5"},
	} {
		args := append([]string{"select", run, "--out", filepath.Join(dir, "bad"), "--budget", "16"}, bad...)
		if code, _, stderr := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", bad, code, stderr)
		}
	}
}
