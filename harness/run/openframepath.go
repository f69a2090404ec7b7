package run

import (
	"errors"
	"fmt"
	"io"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/models"
)

// FramePathNote is what stages.json records of --frame-path: the path
// asked for and the one the image tower took, why the device path did not
// open, and, where it did, the frames it embedded and the videos it
// refused (embedded from host frames, as the host path embeds them).
// HostResize is --frame-resize, which the device path's own frames ignore
// (NVDEC's pictures are resized once on the device, from the decoded
// size) but its host frames follow: the captioner's, the VLM readers' and
// those of the videos the device path refused.
type FramePathNote struct {
	Asked          string `json:"asked"`
	Used           string `json:"used"`
	HostResize     string `json:"host_frames_resize,omitempty"`
	Why            string `json:"why,omitempty"`
	FramesOnDevice int    `json:"frames_on_device,omitempty"`
	RefusedVideos  int    `json:"refused_videos,omitempty"`
	Refusal        string `json:"first_refusal,omitempty"`
}

// openDeviceFrames puts the image tower of m's video models on the GPU
// frame path: on every device of the run, models.DeviceFrames (the
// preprocessing kernels and the tower bound on the CUDA provider) and NVDEC
// on the device's primary context. Where any device cannot, nothing
// changes: the run takes the host path, and one line on stderr says why
// (the models package's own line when DeviceFrames did not open, which
// names a build without the kernels first). The note says which path was
// taken.
func (m *Models) openDeviceFrames(stderr io.Writer) FramePathNote {
	note := FramePathNote{Asked: "device", Used: "host"}
	why := m.deviceFramesRefusal()
	var dfs []*models.DeviceFrames
	closeAll := func() {
		for _, df := range dfs {
			df.Close()
		}
	}
	for d := 0; why == nil && d < len(m.towers); d++ {
		df := m.towers[d].OpenDeviceFrames(m.rt, m.devs[d])
		if !df.OnDevice() {
			// OpenDeviceFrames said why, once, on the runtime's log.
			closeAll()
			note.Why = df.Fallback().Error()
			return note
		}
		dfs = append(dfs, df)
	}
	if why == nil {
		if why = m.nvdecRefusal(); why != nil {
			closeAll()
		}
	}
	if why != nil {
		fmt.Fprintf(stderr, "vidscreen audit: --frame-path device: %v; the image tower reads host frames (as --frame-path host)\n", why)
		note.Why = why.Error()
		return note
	}
	v := m.Video
	for _, df := range dfs {
		v.DeviceImage = append(v.DeviceImage, features.NVDECTower{Frames: df})
		// Before the towers they were opened from.
		m.closes = append([]func() error{df.Close}, m.closes...)
	}
	v.HostImageName, v.ImageName = v.ImageName, framePathName(v.ImageName, true)
	note.Used = "device"
	return note
}

// deviceFramesRefusal says why the GPU frame path cannot open before any
// device is touched: no image tower reads frames, or the run is not on
// CUDA devices; nil when nothing stands in the way.
func (m *Models) deviceFramesRefusal() error {
	if m.Video == nil || len(m.towers) == 0 {
		return errors.New("no image_text role reads frames in this run")
	}
	if len(m.devs) == 0 || m.devs[0].Kind != gpu.CUDA {
		return errors.New("the models run on the CPU (it needs --device cuda and a usable GPU)")
	}
	return nil
}

// nvdecRefusal says why the decoders cannot hand their pictures to the
// device path: a device's NVDEC did not open, or opened in a context of
// FFmpeg's own, whose surfaces the kernels cannot read; nil when every
// device decodes on its primary context.
func (m *Models) nvdecRefusal() error {
	v := m.Video
	if len(v.Decode.GPUs) != len(m.devs) || v.Decode.Options.HWAccel != "cuda" {
		return fmt.Errorf("%d NVDEC devices for %d model devices", len(v.Decode.GPUs), len(m.devs))
	}
	for d, g := range v.Decode.GPUs {
		if err := g.Err(); err != nil {
			return fmt.Errorf("NVDEC on %s did not open: %w", m.devs[d].ID(), err)
		}
		if err := g.SharedErr(); err != nil {
			return fmt.Errorf("NVDEC on %s: %w", m.devs[d].ID(), err)
		}
	}
	return nil
}

// framePathTaken is note with the feature stage's counts st (nil when it
// did not run), for stages.json's frame_path; rep hears it too.
func framePathTaken(note FramePathNote, st *features.Stats, rep interface{ Note(string, ...any) }) FramePathNote {
	if st != nil && note.Used == "device" {
		note.FramesOnDevice, note.RefusedVideos, note.Refusal = st.FramesOnDevice, st.DeviceRefused, st.DeviceRefusal
	}
	rep.Note("frame path", "asked", note.Asked, "used", note.Used, "why", note.Why, "frames_on_device", note.FramesOnDevice, "refused_videos", note.RefusedVideos)
	return note
}

// framePathName is image_text's name in the cache keys and config.json for
// the path the run takes: the weights' name on the host path, marked on
// the device path (DeviceFramesName).
func framePathName(weights string, device bool) string {
	if device {
		return DeviceFramesName(weights)
	}
	return weights
}
