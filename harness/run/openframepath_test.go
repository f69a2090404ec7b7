package run

import (
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
)

// TestFramePathName: the device path's name of image_text differs from the
// host path's (the weights' name), which it keeps, so that neither path's
// cache entries, config.json or answers are read as the other's; the host
// name is recovered from either.
func TestFramePathName(t *testing.T) {
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
		if h := HostFramesName(got); h != weights {
			t.Errorf("device %v: host name %q; want the weights' %q", tc.device, h, weights)
		}
	}
	if framePathName(weights, true) == framePathName(weights, false) {
		t.Fatal("both paths have one name")
	}
}

// TestDeviceFramesRefusals: the reasons the GPU frame path gives before
// it opens anything, and the line and note of a fallback.
func TestDeviceFramesRefusals(t *testing.T) {
	nvdec := decode.NewGPU(0) // no GPU here: Err says why
	defer nvdec.Close()
	cuda := []gpu.Device{{Kind: gpu.CUDA}}
	video := func(gpus ...*decode.GPU) *VideoModels {
		v := &VideoModels{}
		if len(gpus) > 0 {
			v.Decode.Options.HWAccel, v.Decode.GPUs = "cuda", gpus
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		m     *Models
		nvdec bool // the refusal is nvdecRefusal's
		want  string
	}{
		{"no video models", &Models{devs: cuda}, false, "no image_text role reads frames"},
		{"no image tower", &Models{devs: cuda, Video: video()}, false, "no image_text role reads frames"},
		{"on the CPU", &Models{devs: []gpu.Device{gpu.CPUDevice()}, Video: video(), towers: []*models.ImageText{nil}}, false, "the models run on the CPU"},
		{"decoders not on NVDEC", &Models{devs: cuda, Video: video(), towers: []*models.ImageText{nil}}, true, "0 NVDEC devices for 1 model devices"},
		{"NVDEC did not open", &Models{devs: cuda, Video: video(nvdec), towers: []*models.ImageText{nil}}, true, "NVDEC on cuda:0 did not open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.nvdec && nvdec.Err() == nil && tc.m.Video.Decode.GPUs != nil {
				t.Skip("NVDEC opened on this machine, so the refusal this case checks cannot arise here; it runs where NVDEC does not open (every CI machine)")
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
			if tc.m.Video != nil && (tc.m.Video.DeviceImage != nil || tc.m.Video.HostImageName != "") {
				t.Errorf("the video models were changed on a fallback: %+v", tc.m.Video)
			}
		})
	}
}
