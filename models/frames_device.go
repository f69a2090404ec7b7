package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// DeviceFrames embeds decoded frames on one GPU with no host copy between
// the frames' upload and the embeddings: the preprocessing kernel
// (kernels/cuda) resizes and normalises each batch into the image tower's
// input tensor in device memory, and ONNX Runtime's CUDA provider reads
// that tensor where it lies, through an IoBinding (BoundTower). Only the
// embeddings come back. It needs the cuda build (-tags cuda), a device
// that answers, and the CUDA provider; without any of them it says why
// once, on the Runtime's log, and runs today's path (imageprep on the
// CPU, then the tower's Session, itself on the GPU when it can be).
//
// A DeviceFrames is used by one goroutine.
type DeviceFrames struct {
	m        *ImageText
	path     deviceFramePath
	fallback error
}

// deviceFramePath is the GPU side, in frames_device_cuda.go; without the
// cuda build, frames_device_nocuda.go says so.
type deviceFramePath interface {
	embed(ctx context.Context, frames []imageprep.Frame) ([][]float32, error)
	embedNV12(ctx context.Context, frames []cuda.NV12Frame) ([][]float32, error)
	close() error
}

// OpenDeviceFrames opens the GPU frame path of m (opened from a manifest,
// so it has its preprocessor_config.json) on dev. On the CPU it is today's
// path without a message; on a GPU where the path cannot open it falls
// back, and Fallback says why.
func (m *ImageText) OpenDeviceFrames(r *Runtime, dev Device) *DeviceFrames {
	d := &DeviceFrames{m: m}
	if !dev.CUDA {
		d.fallback = errors.New("the CPU was asked for")
		return d
	}
	var err error
	if m.prep == nil {
		err = errors.New("the image tower has no preprocessor_config.json")
	} else {
		d.path, err = openDeviceFramePath(r, m, dev)
	}
	if err != nil {
		d.fallback = err
		fmt.Fprintf(r.log, "models: the GPU frame path on %s is unavailable, frames are preprocessed on the CPU: %v\n", dev, err)
	}
	return d
}

// OnDevice reports whether frames go through the GPU frame path.
func (d *DeviceFrames) OnDevice() bool { return d.path != nil }

// Fallback returns why the GPU frame path is not used, or nil.
func (d *DeviceFrames) Fallback() error { return d.fallback }

// EmbedFrames returns the unit image embeddings of decoded RGB frames, as
// ImageText.EmbedFrames does.
func (d *DeviceFrames) EmbedFrames(ctx context.Context, frames []imageprep.Frame) ([][]float32, error) {
	if d.path == nil {
		return d.m.EmbedFrames(ctx, frames)
	}
	return d.path.embed(ctx, frames)
}

// EmbedNV12 returns the unit image embeddings of pictures NVDEC decoded
// into the device's memory (decode.DeviceNV12 describes them), converted,
// preprocessed and embedded there. They cannot fall back: without the GPU
// frame path it returns why the path is closed.
func (d *DeviceFrames) EmbedNV12(ctx context.Context, frames []cuda.NV12Frame) ([][]float32, error) {
	if d.path == nil {
		return nil, fmt.Errorf("NV12 pictures on the device need the GPU frame path: %w", d.fallback)
	}
	return d.path.embedNV12(ctx, frames)
}

// Close releases the GPU side.
func (d *DeviceFrames) Close() error {
	if d.path == nil {
		return nil
	}
	err := d.path.close()
	d.path = nil
	return err
}
