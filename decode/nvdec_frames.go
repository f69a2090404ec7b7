package decode

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/vidscreen/vidscreen/decode/nv12"
)

// ErrNotOnDevice says a decoder cannot hand its pictures over in device
// memory: the caller uses Frames instead.
var ErrNotOnDevice = errors.New("decode: pictures are not on the GPU")

// FramesOnDevice is Frames for the GPU frame path: it visits the frame
// shown at each of times, in increasing time order (each GOP decoded at
// most once, as Frames does), and hands fn the NV12 surface NVDEC decoded
// it into, at the coded size, with i its index in times. Nothing is
// resized by scale_cuda or downloaded; the preprocessing kernel resizes
// from the full picture. fn must be done with the surface when it returns,
// since the decoder reuses it. The surfaces are in the context of the
// decoder's GPU, the primary one the kernels use.
//
// It returns an error wrapping ErrNotOnDevice, before calling fn for a
// decoder not on NVDEC, one whose GPU decodes in a context of FFmpeg's own
// (GPU.SharedErr), or a video whose display differs from its coded
// picture (rotated or anamorphic: Frames turns and stretches those), and
// at a picture NVDEC did not decode or whose surfaces are not NV12.
func (d *Decoder) FramesOnDevice(ctx context.Context, times []time.Duration, fn func(i int, f nv12.Frame) error) error {
	if d.src == nil {
		return fmt.Errorf("decode: FramesOnDevice on a closed Decoder")
	}
	in := d.src.info
	if d.hw == nil {
		why := d.fallback
		if why == "" {
			why = "the decoder runs on the CPU (Options.HWAccel is not cuda)"
		}
		return fmt.Errorf("%w: %s: %s", ErrNotOnDevice, d.src.path, why)
	}
	if d.hw.shared != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotOnDevice, d.src.path, d.hw.shared)
	}
	if w, h := in.DisplaySize(); w != in.Width || h != in.Height {
		return fmt.Errorf("%w: %s: shown at %dx%d from %dx%d pictures (rotation %d, pixel aspect %d:%d)", ErrNotOnDevice, d.src.path, w, h, in.Width, in.Height, in.Rotation, in.AspectNum, in.AspectDen)
	}
	if d.opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.opt.Timeout)
		defer cancel()
	}
	defer d.src.watch(ctx)()
	order := make([]int, len(times))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return times[order[a]] < times[order[b]] })
	d.targets = d.targets[:0]
	for _, i := range order {
		d.targets = append(d.targets, d.src.toTimestamp(times[i]))
	}
	for _, i := range order {
		f, _, err := d.frameAt(ctx, d.src.toTimestamp(times[i]))
		if err != nil {
			return err
		}
		nv, err := DeviceNV12(f)
		if err != nil {
			return fmt.Errorf("%s at %v: %w", d.src.path, times[i], err)
		}
		if err := fn(i, nv); err != nil {
			return err
		}
		d.stats.FramesOut++
	}
	return nil
}
