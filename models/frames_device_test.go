package models

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/gpu"
)

// TestDeviceFramesFallBack opens the GPU frame path where it cannot run
// (the CPU asked for; a CUDA device in a build or on a machine without
// the kernels, the device or the CUDA provider; a tower without its
// preprocessor): it must say why once, on the runtime's log, when a GPU was
// asked for, and give today's embeddings bit for bit.
func TestDeviceFramesFallBack(t *testing.T) {
	_, dir := tinyModels(t)
	var log bytes.Buffer
	rt, err := NewRuntime(RuntimeOptions{Threads: 2, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	man, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	withPrep, err := rt.OpenImageText(man, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer withPrep.Close()
	noPrep := openImageText(t)
	ctx := context.Background()
	frames := randomFrames(4, 5, 64, 48)
	for _, tc := range []struct {
		name    string
		m       *ImageText
		dev     gpu.Device
		message string // in the log and in Fallback; "" for no message
		embeds  bool   // whether today's path embeds the frames
	}{
		{"cpu", withPrep, gpu.CPUDevice(), "", true},
		{"cuda:0 here", withPrep, gpu.Device{Kind: gpu.CUDA}, "the GPU frame path on cuda:0 is unavailable", true},
		{"no preprocessor", noPrep, gpu.Device{Kind: gpu.CUDA, Index: 1}, "has no preprocessor_config.json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log.Reset()
			d := tc.m.OpenDeviceFrames(rt, tc.dev)
			defer d.Close()
			if d.OnDevice() {
				t.Skip("a GPU frame path opened here; TestDeviceFramesMatchCPU (cuda build) covers it")
			}
			if d.Fallback() == nil {
				t.Fatal("no reason given for the fallback")
			}
			t.Logf("falls back: %v", d.Fallback())
			if tc.message == "" {
				if log.Len() != 0 {
					t.Fatalf("the CPU path printed %q", log.String())
				}
			} else {
				if got := log.String(); !strings.Contains(got, tc.message) || strings.Count(got, "\n") != 1 || !strings.Contains(got, d.Fallback().Error()) {
					t.Fatalf("log %q; want one line containing %q and the reason %v", got, tc.message, d.Fallback())
				}
			}
			if _, err := d.EmbedNV12(ctx, []nv12.Frame{{Width: 64, Height: 48}}); err == nil || !strings.Contains(err.Error(), d.Fallback().Error()) {
				t.Fatalf("NV12 pictures without the GPU frame path: error %v; want the reason %v", err, d.Fallback())
			}
			got, err := d.EmbedFrames(ctx, frames)
			want, wantErr := tc.m.EmbedFrames(ctx, frames)
			if !tc.embeds {
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
					t.Fatalf("errors %v and %v; want today's path's error", err, wantErr)
				}
				return
			}
			if err != nil || wantErr != nil {
				t.Fatal(err, wantErr)
			}
			for i := range want {
				sameBits(t, "frame "+itoa(i), got[i], want[i])
			}
			if log.Len() > 0 && strings.Count(log.String(), "\n") != 1 {
				t.Fatalf("embedding printed more: %q", log.String())
			}
		})
	}
}
