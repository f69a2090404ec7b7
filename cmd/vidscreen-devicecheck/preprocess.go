package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// The preprocessing checks: decoded 1080p RGB frames to an image tower's
// input tensor, CLIP ViT-B/32's (shortest edge 224, centre crop 224) and a
// SigLIP 448 square's, on kernels/cuda's preprocessing kernels, against
// models/imageprep on the CPU (bit for bit), and the rate at batch 256
// with the frames already in device memory, as NVDEC leaves them.
const (
	prepW, prepH    = 1920, 1080
	prepDistinct    = 8   // distinct seeded frames; the rate batch repeats them
	prepBatch       = 256 // the batch
	prepTarget      = 20_000.0
	prepMinSeconds  = 1.0 // the rate runs batches for at least this long
	prepMinBatches  = 5
	prepHBMBytesPer = 4.8e12 // H200 HBM3e bandwidth, bytes/s (datasheet)
)

// prepCases are the two output sizes the issue asks for.
var prepCases = []struct{ name, config string }{
	{"preprocess_224", `{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 224}, "crop_size": 224, "resample": 3}`},
	{"preprocess_448", `{"image_processor_type": "SiglipImageProcessor", "size": {"height": 448, "width": 448}, "resample": 3}`},
}

// PrepFigures are the preprocessing checks' own fields of a RefCheck and a
// CheckResult (embedded; null or absent for the other checks).
type PrepFigures struct {
	FramesSHA256 string   `json:"frames_sha256,omitempty"`
	CPUFramesPS  float64  `json:"cpu_frames_per_s,omitempty"`
	GPUFramesPS  *float64 `json:"gpu_frames_per_s"`
	// With the batch's copy from pageable host memory included: the
	// figure without NVDEC, which keeps frames on the device.
	GPULoadFramesPS *float64 `json:"gpu_frames_per_s_with_upload"`
	MaxAbsDiff      *float64 `json:"gpu_max_abs_diff"`
	// HostPortEqual: kernels/cuda's Go port of the kernels (Host) gives
	// the reference's digest too; run where no GPU did.
	HostPortEqual *bool `json:"host_port_equal,omitempty"`
}

// prepFrames returns the seeded 1080p frames: noise (every level, no
// structure), hard-edged blocks at 0 and 255 (where bicubic overshoots
// and the clipping decides) and noisy gradients, in turn.
func prepFrames(seed uint64) []imageprep.Frame {
	rng := rand.New(rand.NewPCG(seed, 0x9e3))
	frames := make([]imageprep.Frame, prepDistinct)
	for n := range frames {
		pix := make([]byte, 3*prepW*prepH)
		for y := 0; y < prepH; y++ {
			for x := 0; x < prepW; x++ {
				for c := 0; c < 3; c++ {
					var v int
					switch n % 3 {
					case 0:
						v = rng.IntN(256)
					case 1:
						if ((x/(5+n)+y/(3+c))+c)%2 == 0 {
							v = 255
						}
					default:
						v = (x*255/prepW+y*255/prepH)/2 + rng.IntN(32) - 16
					}
					pix[3*(y*prepW+x)+c] = byte(min(255, max(0, v)))
				}
			}
		}
		frames[n] = imageprep.Frame{Pix: pix, Width: prepW, Height: prepH}
	}
	return frames
}

func digestFrames(fs []imageprep.Frame) string {
	h := sha256.New()
	for _, f := range fs {
		h.Write(f.Pix)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digestFloats(v []float32) string {
	h := sha256.New()
	buf := make([]byte, 4*4096)
	for len(v) > 0 {
		n := min(len(v), 4096)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
		}
		h.Write(buf[:4*n])
		v = v[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

func prepProcessor(config string) (*imageprep.Processor, error) {
	cfg, err := imageprep.ParseConfig([]byte(config), "preprocess check")
	if err != nil {
		return nil, err
	}
	return imageprep.New(*cfg, imageprep.Options{})
}

func prepWhat(p *imageprep.Processor) string {
	h, w := p.OutputSize()
	return fmt.Sprintf("%dx%d RGB frames to %s's %dx%d float32 NCHW input (%s resample), batch %d", prepW, prepH, p.Config().Type, w, h, p.Config().Resample, prepBatch)
}

// prepReference runs imageprep on the seeded frames here: the output's
// digest and the CPU's frames/s (all threads).
func prepReference(ctx context.Context, seed uint64) ([]RefCheck, error) {
	frames := prepFrames(seed)
	fd := digestFrames(frames)
	var out []RefCheck
	for _, c := range prepCases {
		p, err := prepProcessor(c.config)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", c.name, err)
		}
		dst := make([]float32, len(frames)*p.FrameLen())
		start := time.Now()
		if err := p.Batch(ctx, frames, dst); err != nil {
			return nil, fmt.Errorf("reference %s: %w", c.name, err)
		}
		secs := time.Since(start).Seconds()
		out = append(out, RefCheck{Name: c.name, What: prepWhat(p), Count: int64(len(dst)), SHA256: digestFloats(dst), Seconds: secs,
			PrepFigures: &PrepFigures{FramesSHA256: fd, CPUFramesPS: float64(len(frames)) / secs}})
	}
	return out, nil
}

// prepOpener is a device with preprocessing kernels (kernels/cuda's GPU
// and Host).
type prepOpener interface {
	OpenPrep() (gpuprep.PrepDevice, error)
}

// prepChecks runs the preprocessing checks on dev (nil: no GPU ran; the
// GPU fields stay null and Host's port of the kernels is checked instead),
// the rate at batch frames (prepBatch; tests run Host with fewer).
func prepChecks(ctx context.Context, ref *Reference, dev cuda.Device, batch int) ([]CheckResult, error) {
	frames := prepFrames(ref.Seed)
	fd := digestFrames(frames)
	var out []CheckResult
	for _, c := range prepCases {
		rc, ok := ref.check(c.name)
		if !ok || rc.PrepFigures == nil {
			return nil, fmt.Errorf("reference has no check %s: regenerate the reference with this binary", c.name)
		}
		if rc.FramesSHA256 != fd {
			return nil, fmt.Errorf("the seeded frames differ from the reference's (%s): regenerate the reference with this binary", rc.FramesSHA256)
		}
		p, err := prepProcessor(c.config)
		if err != nil {
			return nil, err
		}
		_, w := p.OutputSize()
		// Bytes a frame moves through device memory: the frame read, the
		// intermediate image written and read, the tensor written.
		bytesPer := float64(prepW*prepH*3 + 2*prepH*w*3 + 4*p.FrameLen())
		res := CheckResult{Name: c.name, What: prepWhat(p), Backend: "preprocessing kernels (preprocess.cu)", CPUCount: rc.Count, CPUSHA256: rc.SHA256,
			CPUSeconds: rc.Seconds, Target: fmt.Sprintf(">= %.0f frames/s", prepTarget),
			Ceiling: fmt.Sprintf("H200 HBM 4.8 TB/s at ~%.1f MB a frame: ~%.0f frames/s; CPU here (imageprep, %s) %.0f frames/s",
				bytesPer/1e6, prepHBMBytesPer/bytesPer, ref.CPU, rc.CPUFramesPS),
			PrepFigures: &PrepFigures{CPUFramesPS: rc.CPUFramesPS}}
		op, isPrep := dev.(prepOpener)
		if dev == nil || !isPrep {
			if dev != nil {
				res.Error = fmt.Sprintf("device %s has no preprocessing kernels", dev.Name())
			}
			eq, err := prepEqual(ctx, gpuprep.Host{}, p, frames, rc.SHA256)
			if err != nil {
				return nil, fmt.Errorf("%s on the host port: %w", c.name, err)
			}
			res.HostPortEqual = &eq
			out = append(out, res)
			continue
		}
		if err := prepGPU(ctx, op, p, frames, batch, &res); err != nil {
			res.Error = err.Error()
		}
		out = append(out, res)
	}
	return out, nil
}

// prepEqual runs p's frames through d's PrepDevice and compares the
// output's digest with want.
func prepEqual(ctx context.Context, d prepOpener, p *imageprep.Processor, frames []imageprep.Frame, want string) (bool, error) {
	dev, err := d.OpenPrep()
	if err != nil {
		return false, err
	}
	defer dev.Close()
	got := make([]float32, len(frames)*p.FrameLen())
	if err := gpuprep.Preprocess(ctx, dev, p, frames, got, len(frames)); err != nil {
		return false, err
	}
	return digestFloats(got) == want, nil
}

// prepGPU fills res's GPU fields: the seeded frames' output against the
// reference (and against imageprep run here, for the size of any
// difference), then the rate at batch frames with and without the upload.
func prepGPU(ctx context.Context, op prepOpener, p *imageprep.Processor, frames []imageprep.Frame, batchSize int, res *CheckResult) (err error) {
	dev, err := op.OpenPrep()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dev.Close()) }()
	got := make([]float32, len(frames)*p.FrameLen())
	if err := gpuprep.Preprocess(ctx, dev, p, frames, got, len(frames)); err != nil {
		return err
	}
	cnt, dig := int64(len(got)), digestFloats(got)
	eq := dig == res.CPUSHA256
	res.GPUCount, res.GPUSHA256, res.Equal = &cnt, &dig, &eq
	want := make([]float32, len(got))
	if err := p.Batch(ctx, frames, want); err != nil {
		return err
	}
	var d float64
	for i := range got {
		d = math.Max(d, math.Abs(float64(got[i])-float64(want[i])))
	}
	res.MaxAbsDiff = &d

	plan, err := p.Plan(prepW, prepH)
	if err != nil {
		return err
	}
	prep, err := dev.NewPrep(plan, batchSize)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, prep.Close()) }()
	batch := make([]imageprep.Frame, batchSize)
	for i := range batch {
		batch[i] = frames[i%len(frames)]
	}
	// Warm: the first launch and the load of every page of the batch.
	if err := prep.Load(batch); err != nil {
		return err
	}
	if err := errors.Join(prep.Run(ctx, batchSize), prep.Sync()); err != nil {
		return err
	}
	start := time.Now()
	if err := errors.Join(prep.Load(batch), prep.Run(ctx, batchSize), prep.Sync()); err != nil {
		return err
	}
	withLoad := float64(batchSize) / time.Since(start).Seconds()
	res.GPULoadFramesPS = &withLoad
	n := 0
	start = time.Now()
	for n < prepMinBatches || time.Since(start).Seconds() < prepMinSeconds {
		if err := prep.Run(ctx, batchSize); err != nil {
			return err
		}
		n++
		if n%prepMinBatches == 0 {
			if err := prep.Sync(); err != nil {
				return err
			}
		}
	}
	if err := prep.Sync(); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fps := float64(n*batchSize) / secs
	res.GPUSeconds, res.GPUFramesPS = &secs, &fps
	return nil
}
