package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditFramePathUsage: --frame-path takes host or device, and device
// needs the frames of --videos and the image tower of --models;
// --frame-resize takes processor or ffmpeg.
func TestAuditFramePathUsage(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 4)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown path", []string{"--frame-path", "gpu"}, `--frame-path "gpu": want host or device`},
		{"an unknown resize", []string{"--frame-resize", "pillow"}, `--frame-resize "pillow": want processor or ffmpeg`},
		{"device without videos", []string{"--frame-path", "device"}, "--frame-path device needs --videos ROOT and --models DIR"},
		{"device with models but no videos", []string{"--frame-path", "device", "--models", t.TempDir()}, "--frame-path device needs --videos ROOT and --models DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runAudit(append(tc.args, "--items", items, "--out", filepath.Join(t.TempDir(), "o"))...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestAuditDeviceFramePathFallsBack audits with --frame-path device where
// the GPU frame path cannot open (here: no GPU, so --device cuda:0 runs on
// the CPU; on a GPU machine the default build lacks the kernels): one line
// says why, stages.json records the fallback, and every output is the
// host path's byte for byte, config.json and so the cache names included.
func TestAuditDeviceFramePathFallsBack(t *testing.T) {
	items, root, modelsDir := devicesFixture(t)
	tmp := t.TempDir()
	run := func(name string, extra ...string) (string, string) {
		out := filepath.Join(tmp, name)
		args := append([]string{"--items", items, "--out", out, "--videos", root, "--models", modelsDir,
			"--permutations", "0", "--log-format", "text", "--device", "cuda:0"}, extra...)
		code, _, stderr := runAudit(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		return out, stderr
	}
	host, hostErr := run("host")
	if strings.Contains(hostErr, "frame-path") || strings.Contains(hostErr, "GPU frame path") {
		t.Errorf("--frame-path host spoke of the frame path:\n%s", hostErr)
	}
	dev, stderr := run("device", "--frame-path", "device")
	b, err := os.ReadFile(filepath.Join(dev, rundir.StagesFile))
	if err != nil {
		t.Fatal(err)
	}
	var stages struct {
		FramePath runs.FramePathNote `json:"frame_path"`
	}
	if err := json.Unmarshal(b, &stages); err != nil {
		t.Fatal(err)
	}
	fp := stages.FramePath
	if fp.Asked != "device" {
		t.Fatalf("stages.json frame_path %+v; want the device path asked for", fp)
	}
	if fp.Used == "device" {
		t.Skipf("the GPU frame path opened here (%d frames on the device): its embeddings differ from the host's by design", fp.FramesOnDevice)
	}
	if fp.Used != "host" || fp.Why == "" {
		t.Errorf("stages.json frame_path %+v; want the host path used and why", fp)
	}
	lines := 0
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "--frame-path device:") || strings.Contains(l, "GPU frame path on") {
			lines++
			t.Logf("the fallback: %s", l)
			if !strings.Contains(l, fp.Why) {
				t.Errorf("the fallback line %q does not give the reason %q", l, fp.Why)
			}
		}
	}
	if lines != 1 {
		t.Errorf("%d lines about the frame path; want one:\n%s", lines, stderr)
	}
	sameOutputs(t, host, dev, "between --frame-path host and a device path that fell back")
}
