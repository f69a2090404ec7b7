package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/models"
)

// TestFramePathName: the device path's name of image_text differs from the
// host path's (the weights' name), which it keeps, so that neither path's
// cache entries, config.json or answers are read as the other's; the host
// name is recovered from either.
func TestFramePathName(t *testing.T) {
	t.Parallel()
	const weights = "onnx:image_text:clip:vision_model.onnx=sha256:0123456789abcdef"
	for _, tc := range []struct {
		device bool
		want   string
	}{
		{false, weights},
		{true, weights + ":frame_path=device"},
	} {
		got := framePathName(weights, tc.device)
		if got != tc.want {
			t.Errorf("device %v: %q; want %q", tc.device, got, tc.want)
		}
		if h := runs.HostFramesName(got); h != weights {
			t.Errorf("device %v: host name %q; want the weights' %q", tc.device, h, weights)
		}
	}
	if framePathName(weights, true) == framePathName(weights, false) {
		t.Fatal("both paths have one name")
	}
}

// TestAuditFramePathUsage: --frame-path takes host or device, and device
// needs the frames of --videos and the image tower of --models.
func TestAuditFramePathUsage(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 4)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown path", []string{"--frame-path", "gpu"}, `--frame-path "gpu": want host or device`},
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
	b, err := os.ReadFile(filepath.Join(dev, runs.StagesFile))
	if err != nil {
		t.Fatal(err)
	}
	var stages struct {
		FramePath framePathNote `json:"frame_path"`
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

// TestDeviceFramesRefusals: the reasons the GPU frame path gives before
// it opens anything, and the line and note of a fallback.
func TestDeviceFramesRefusals(t *testing.T) {
	nvdec := decode.NewGPU(0) // no GPU here: Err says why
	defer nvdec.Close()
	cuda := []models.Device{{CUDA: true}}
	video := func(gpus ...*decode.GPU) *runs.VideoModels {
		v := &runs.VideoModels{}
		if len(gpus) > 0 {
			v.Decode.Options.HWAccel, v.Decode.GPUs = "cuda", gpus
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		m     *auditModels
		nvdec bool // the refusal is nvdecRefusal's
		want  string
	}{
		{"no video models", &auditModels{devs: cuda}, false, "no image_text role reads frames"},
		{"no image tower", &auditModels{devs: cuda, video: video()}, false, "no image_text role reads frames"},
		{"on the CPU", &auditModels{devs: []models.Device{models.CPU}, video: video(), towers: []*models.ImageText{nil}}, false, "the models run on the CPU"},
		{"decoders not on NVDEC", &auditModels{devs: cuda, video: video(), towers: []*models.ImageText{nil}}, true, "0 NVDEC devices for 1 model devices"},
		{"NVDEC did not open", &auditModels{devs: cuda, video: video(nvdec), towers: []*models.ImageText{nil}}, true, "NVDEC on cuda:0 did not open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.nvdec && nvdec.Err() == nil && tc.m.video.Decode.GPUs != nil {
				t.Skip("NVDEC opened here")
			}
			var err error
			if tc.nvdec {
				if err = tc.m.deviceFramesRefusal(); err != nil {
					t.Fatalf("refused before the devices: %v", err)
				}
				err = tc.m.nvdecRefusal()
			} else {
				err = tc.m.deviceFramesRefusal()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("refusal %v; want %q", err, tc.want)
			}
			if tc.nvdec {
				return
			}
			var stderr strings.Builder
			note := tc.m.openDeviceFrames(&stderr)
			if note.Asked != "device" || note.Used != "host" || note.Why != err.Error() {
				t.Errorf("note %+v; want the host path used because %v", note, err)
			}
			if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "--frame-path device: "+err.Error()) {
				t.Errorf("stderr %q; want one line giving the reason", got)
			}
			if tc.m.video != nil && (tc.m.video.DeviceImage != nil || tc.m.video.HostImageName != "") {
				t.Errorf("the video models were changed on a fallback: %+v", tc.m.video)
			}
		})
	}
}
