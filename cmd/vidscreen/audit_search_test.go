package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runs "github.com/vidscreen/vidscreen/harness/run"
)

// TestAuditDeviceSearches runs the audit without models with --device
// cuda and cuda:0,1: in bin/vidscreen (no GPU kernels), or where no GPU
// opens, its searches run on the CPU after one line saying why, as a
// warning record in a JSON log; in bin/vidscreen-cuda on a GPU they run
// there, said in a note. The outputs are the CPU's bytes either way.
func TestAuditDeviceSearches(t *testing.T) {
	items := demoSubset(t, 25)
	dir := t.TempDir()
	audit := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		code, _, stderr := runAudit(append([]string{"--items", items, "--out", out, "--seed", "4", "--cross-pool"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stderr
	}
	audit("cpu", "--quiet")
	for _, tt := range []struct {
		name, device, says string
	}{
		{"cuda", "cuda", "--device cuda: "},
		{"the first of two GPUs", "cuda:0,1", "--device cuda:0: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := strings.ReplaceAll(tt.device, ":", "_")
			stderr := audit(out, "--device", tt.device, "--quiet")
			onGPU := stderr == "" && hasGPUKernels
			if !onGPU && (strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.says) || !strings.HasSuffix(stderr, "; searching on the CPU\n")) {
				t.Errorf("stderr %q: want one line naming %q and saying the searches run on the CPU", stderr, tt.says)
			}
			for _, f := range []string{runs.ConfigFile, runs.CardsJSON, runs.CardsMarkdown, runs.ItemsParquet, runs.DuplicatesFile} {
				want, err := os.ReadFile(filepath.Join(dir, "cpu", f))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(dir, out, f))
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
	t.Run("a JSON log stays JSON", func(t *testing.T) {
		stderr := audit("json", "--device", "cuda", "--log-format", "json")
		said := 0
		for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("a line of the JSON log is not JSON: %q", line)
			}
			if msg, _ := rec["msg"].(string); strings.Contains(msg, "searching on the CPU") || rec["msg"] == "searches" {
				said++
			}
		}
		if said != 1 {
			t.Errorf("%d records say where the searches ran, want one:\n%s", said, stderr)
		}
	})
}
