package run

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/models/served"
)

// TestLargestSize: display size wins wherever a role asks for it; else the
// largest short side, so that no role's frames are enlarged.
func TestLargestSize(t *testing.T) {
	t.Parallel()
	short := func(s int) decode.Size { return decode.Size{Short: s} }
	for _, tc := range []struct {
		in   []decode.Size
		want decode.Size
	}{
		{nil, decode.Size{}},
		{[]decode.Size{short(224)}, short(224)},
		{[]decode.Size{short(224), short(448)}, short(448)},
		{[]decode.Size{short(448), short(112)}, short(448)},
		{[]decode.Size{{}, short(448)}, decode.Size{}},
		{[]decode.Size{short(448), {}}, decode.Size{}},
	} {
		if got := largestSize(tc.in...); got != tc.want {
			t.Errorf("largestSize(%v) = %v; want %v", tc.in, got, tc.want)
		}
	}
}

// frameResizeModels is an audit's video models as OpenModels leaves them
// with --frame-resize ffmpeg's sizes: a 224-pixel image tower, vlm_reader
// (ONNX at 384, or served), screen_reader and one later vlm_reader entry
// (ONNX at 336 or served).
func frameResizeModels(servedVLMs bool) *VideoModels {
	v := &VideoModels{ImageText: []ImageText{nil}, Size: decode.Size{Short: 224}, ExtraVLMNames: []string{"extra"}}
	onnx, srv := &spread.VLMScorer{}, &spread.VLMScorer{} // the type does not matter: the opener's marks do
	if servedVLMs {
		s := decode.Size{Short: served.DecodeShort}
		v.VLM, v.VLMSize, v.servedVLM = srv, s, true
		v.Screen, v.ScreenSize, v.servedScreen = srv, s, true
		v.ExtraVLM, v.ExtraVLMSizes, v.servedExtra = append(v.ExtraVLM, srv), []decode.Size{s}, []bool{true}
		return v
	}
	v.VLM, v.VLMSize = onnx, decode.Size{Short: 384}
	v.Screen, v.ScreenSize = onnx, decode.Size{Short: 384}
	v.ExtraVLM, v.ExtraVLMSizes, v.servedExtra = append(v.ExtraVLM, onnx), []decode.Size{{Short: 336}}, []bool{false}
	return v
}

// TestFrameResizeDecodeSizes: with --frame-resize processor the decode
// passes that an ONNX image role reads are at display size, and a served
// VLM reader's own pass keeps the served size; with ffmpeg every pass is
// at the largest input side, as before the option. The run's decode size
// is in config.json (and so in every frame answer's input), so the two
// choices never share a run directory.
func TestFrameResizeDecodeSizes(t *testing.T) {
	t.Parallel()
	native, short := decode.Size{}, func(s int) decode.Size { return decode.Size{Short: s} }
	all := attack.NeedCentre | attack.NeedVLMCentre | attack.NeedVLMShuffled | attack.NeedVLMInOrder
	for _, tc := range []struct {
		name               string
		served, processor  bool
		noTower            bool
		run, screen, extra decode.Size
	}{
		{"onnx, ffmpeg", false, false, false, short(384), short(384), short(384)},
		{"onnx, processor", false, true, false, native, native, native},
		{"served with a tower, ffmpeg", true, false, false, short(448), short(448), short(448)},
		// One pass serves the tower and vlm_reader: display size, from
		// which the served client shrinks the frames it sends.
		{"served with a tower, processor", true, true, false, native, native, native},
		// Served readers alone keep their own size.
		{"served alone, ffmpeg", true, false, true, short(448), short(448), short(448)},
		{"served alone, processor", true, true, true, short(448), short(448), short(448)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := frameResizeModels(tc.served)
			if tc.noTower {
				v.ImageText, v.Size = nil, decode.Size{}
			}
			if tc.processor {
				v.resizeInProcessor()
			}
			o := &Options{Video: v}
			if got := o.decodeSize(all); got != tc.run {
				t.Errorf("run's decode size %v; want %v", got, tc.run)
			}
			if got := o.screenDecodeSize(all); got != tc.screen {
				t.Errorf("screen_reader's decode size %v; want %v", got, tc.screen)
			}
			if got := o.extraVLMDecodeSize(all, 0); got != tc.extra {
				t.Errorf("vlm_reader entry 2's decode size %v; want %v", got, tc.extra)
			}
			if cfg := videoConfig(*o, all); cfg.Size != tc.run.String() {
				t.Errorf("config.json decode_size %q; want %q", cfg.Size, tc.run.String())
			}
		})
	}
}

// TestFrameResizeIdentity: the two choices give different config.json
// videos parts (decode_size, the screen and extra VLM readers' sizes) on
// the same models, so a run directory of one is refused on the other.
func TestFrameResizeIdentity(t *testing.T) {
	t.Parallel()
	all := attack.NeedCentre | attack.NeedVLMCentre | attack.NeedVLMShuffled | attack.NeedVLMInOrder
	ff, pr := frameResizeModels(false), frameResizeModels(false)
	pr.resizeInProcessor()
	a, b := videoConfig(Options{Video: ff}, all), videoConfig(Options{Video: pr}, all)
	if a.Size == b.Size {
		t.Errorf("both choices decode at %s", a.Size)
	}
	if strings.Join(a.ScreenSets, ";") == strings.Join(b.ScreenSets, ";") || strings.Join(a.VLMExtra, ";") == strings.Join(b.VLMExtra, ";") {
		t.Errorf("screen_reader's or the later entries' sets name no size change: %q %q / %q %q", a.ScreenSets, b.ScreenSets, a.VLMExtra, b.VLMExtra)
	}
	if !strings.HasSuffix(b.VLMExtra[0], "@native") || !strings.HasSuffix(a.VLMExtra[0], "@short:384") {
		t.Errorf("later entries %q (ffmpeg), %q (processor)", a.VLMExtra, b.VLMExtra)
	}
}

// TestSpecFrameResize: processor is the default; the two values and ""
// are accepted, anything else is a usage error naming the flag.
func TestSpecFrameResize(t *testing.T) {
	t.Parallel()
	if d := DefaultSpec(); d.FrameResize != FrameResizeProcessor {
		t.Errorf("default --frame-resize %q; want %q", d.FrameResize, FrameResizeProcessor)
	}
	for _, tc := range []struct {
		value string
		ok    bool
	}{{"", true}, {"processor", true}, {"ffmpeg", true}, {"Processor", false}, {"pillow", false}} {
		s := DefaultSpec()
		s.Out, s.FrameResize = t.TempDir(), tc.value
		err := s.Validate()
		if tc.ok != (err == nil) {
			t.Errorf("--frame-resize %q: %v", tc.value, err)
			continue
		}
		var ue *harness.UsageError
		if err != nil && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "--frame-resize")) {
			t.Errorf("--frame-resize %q: %v; want a usage error naming the flag", tc.value, err)
		}
	}
}

// TestFrameResizeBoundsDecoders: decoders holding full frames are few (at
// most processorDecoders, fewer where --workers asks for fewer) with one
// finished video waiting; the worker count changes no output.
func TestFrameResizeBoundsDecoders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ workers, want int }{{0, min(runtime.NumCPU(), processorDecoders)}, {1, 1}, {2, 2}, {16, processorDecoders}} {
		v := frameResizeModels(false)
		v.Decode.Workers = tc.workers
		v.resizeInProcessor()
		if v.Decode.Workers != tc.want || v.Decode.Queue != 1 {
			t.Errorf("--workers %d: %d decoders, queue %d; want %d and 1", tc.workers, v.Decode.Workers, v.Decode.Queue, tc.want)
		}
	}
	// Served readers alone decode small frames: the decoders stay as asked.
	v := frameResizeModels(true)
	v.ImageText, v.Size, v.Decode.Workers = nil, decode.Size{}, 16
	v.resizeInProcessor()
	if v.Decode.Workers != 16 || v.Decode.Queue != 0 {
		t.Errorf("served readers alone: %d decoders, queue %d; want 16 and the default", v.Decode.Workers, v.Decode.Queue)
	}
}
