package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// DeviceFrames embeds decoded frames on one GPU with no host copy between
// the frames' upload and the embeddings: the preprocessing kernel
// (models/imageprep/gpuprep) resizes and normalises each batch into the
// image tower's input tensor in device memory, and ONNX Runtime's CUDA
// provider reads that tensor where it lies, through an IoBinding
// (BoundTower). Only the embeddings come back. It needs the cuda build
// (-tags cuda), a device that answers, and the CUDA provider; without any
// of them it says why once, on the Runtime's log, and runs today's path
// (imageprep on the CPU, then the tower's Session, itself on the GPU when
// it can be).
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
	embedDecoded(ctx context.Context, n int, visit NV12Visitor) ([][]float32, error)
	close() error
}

// OpenDeviceFrames opens the GPU frame path of m (opened from a manifest,
// so it has its preprocessor_config.json) on dev. On the CPU it is today's
// path without a message; on a GPU where the path cannot open it falls
// back, and Fallback says why.
func (m *ImageText) OpenDeviceFrames(r *Runtime, dev gpu.Device) *DeviceFrames {
	d := &DeviceFrames{m: m}
	if dev.Kind != gpu.CUDA {
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
		fmt.Fprintf(r.log, "models: the GPU frame path on %s is unavailable, frames are preprocessed on the CPU: %v\n", dev.ID(), err)
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

// An NV12Visitor hands over pictures in device memory one at a time, each
// with its index: decode.Decoder.FramesOnDevice, bound to its times, is
// one. A picture may be released as soon as yield returns.
type NV12Visitor func(yield func(i int, f nv12.Frame) error) error

// EmbedDecoded returns the unit image embeddings of the n pictures visit
// hands over (indices 0..n-1, each once), NVDEC's surfaces still on the
// device: each is converted to RGB into the batch on arrival (so the
// decoder gets its surface back at once), and a batch is preprocessed and
// embedded when it is full or the picture size changes. There is no
// fallback: without the GPU frame path it returns why the path is closed,
// and the caller decodes to the host and uses EmbedFrames.
func (d *DeviceFrames) EmbedDecoded(ctx context.Context, n int, visit NV12Visitor) ([][]float32, error) {
	if d.path == nil {
		return nil, fmt.Errorf("NV12 pictures on the device need the GPU frame path: %w", d.fallback)
	}
	return d.path.embedDecoded(ctx, n, visit)
}

// EmbedNV12 is EmbedDecoded for pictures all held by the caller.
func (d *DeviceFrames) EmbedNV12(ctx context.Context, frames []nv12.Frame) ([][]float32, error) {
	return d.EmbedDecoded(ctx, len(frames), func(yield func(int, nv12.Frame) error) error {
		for i, f := range frames {
			if err := yield(i, f); err != nil {
				return err
			}
		}
		return nil
	})
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
