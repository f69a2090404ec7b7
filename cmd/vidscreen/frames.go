package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/decode"
)

func newFramesCommand() *command {
	return &command{
		name:  "frames",
		short: "write the frames a sampler picks from a video, and a contact sheet",
		usage: "VIDEO --out DIR [--sampler SPEC] [--size S] [flags]",
		long: `Frames decodes the frames that a sampler picks from VIDEO, resized as the models
will see them, and writes them to DIR as frame_000.png, frame_001.png, ... in the
sampler's order, plus contact.png, all of them tiled on one sheet, so a person can look at
what the models will see. It prints one line per frame: its position, the time asked
for, the time of the frame returned (the last frame shown at or before it) and its number.

Samplers: uniform:N, centre, fps:R[,max:M], window:N,frac:F, half:1|2[,n:N],
offset:K[,n:N][,steps:S], times:T1,T2,... (seconds from the clip start). --shuffle
permutes the decoded frames with the seed, as the shuffled-frames probe does.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the PNG files to directory `DIR` (created if missing; required)")
			samplerSpec := fs.String("sampler", "uniform:32", "pick frames with sampler `SPEC`")
			sizeSpec := fs.String("size", "224", "resize to `SIZE`: S (short side S), max:L (long side at most L), short:S,max:L, or native")
			clipSpec := fs.String("clip", "", "restrict sampling to `START-END` seconds of the video (either side may be empty)")
			seed := fs.Uint64("seed", 0, "the item seed `N` for seeded samplers (window) and --shuffle")
			shuffle := fs.Bool("shuffle", false, "write the frames in an order permuted by --seed")
			hwaccel := fs.String("hwaccel", "none", "decode with `ACCEL`: none (CPU) or cuda (NVDEC, falling back to the CPU with a message)")
			threads := fs.Int("threads", 0, "FFmpeg decoding threads `N` (0: one per core)")
			timeout := fs.Duration("timeout", 5*time.Minute, "give up on the video after `D`")
			ffLog := fs.String("ffmpeg-log", "fatal", "let FFmpeg print its own messages at `LEVEL` (quiet, error, warning, info)")
			return func(ctx context.Context, args []string) error {
				args, err := parseInterspersed(fs, args)
				if err != nil {
					return err
				}
				if len(args) != 1 {
					return &usageError{fmt.Sprintf("want exactly one VIDEO, got %d arguments", len(args))}
				}
				if *out == "" {
					return &usageError{"--out DIR is required"}
				}
				sampler, err := decode.ParseSampler(*samplerSpec)
				if err != nil {
					return &usageError{err.Error()}
				}
				size, err := decode.ParseSize(*sizeSpec)
				if err != nil {
					return &usageError{err.Error()}
				}
				clip, err := parseClip(*clipSpec)
				if err != nil {
					return &usageError{err.Error()}
				}
				if err := decode.SetLogLevel(*ffLog); err != nil {
					return &usageError{err.Error()}
				}
				pool := &decode.Pool{Workers: 1, Threads: *threads,
					Options: decode.Options{HWAccel: *hwaccel, Timeout: *timeout},
					Notify:  func(msg string) { fmt.Fprintln(env.stderr, msg) }}
				job := decode.Job{Path: args[0], Clip: clip, Sampler: sampler, Seed: *seed, Size: size}
				return pool.Run(ctx, []decode.Job{job}, func(r *decode.Result) error {
					if r.Err != nil {
						if decode.KindOf(r.Err) != "" {
							return fmt.Errorf("%w: %v", errBadInput, r.Err)
						}
						return r.Err
					}
					order := make([]int, len(r.Frames))
					for i := range order {
						order[i] = i
					}
					if *shuffle {
						order = decode.Shuffle(len(r.Frames), *seed)
					}
					return writeFrames(env, *out, r, order)
				})
			}
		},
	}
}

// parseClip reads "START-END" in seconds; either side may be empty.
func parseClip(s string) (decode.Clip, error) {
	var c decode.Clip
	if s == "" {
		return c, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return c, fmt.Errorf("--clip %q: want START-END in seconds", s)
	}
	for _, p := range []struct {
		text string
		dst  *time.Duration
	}{{a, &c.Start}, {b, &c.End}} {
		if p.text == "" {
			continue
		}
		v, err := strconv.ParseFloat(p.text, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return c, fmt.Errorf("--clip %q: %q is not a number of seconds", s, p.text)
		}
		*p.dst = time.Duration(v * 1e9)
	}
	if c.End > 0 && c.End <= c.Start {
		return c, fmt.Errorf("--clip %q: the end is not after the start", s)
	}
	return c, nil
}

func writeFrames(env *environment, dir string, r *decode.Result, order []int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%s: %d frames of %dx%d, sampler %s\n", r.Job.Path, len(r.Frames), r.Frames[0].Width, r.Frames[0].Height, r.Job.Sampler)
	fmt.Fprintf(env.stdout, "%-16s %10s %10s %7s\n", "file", "asked (s)", "shown (s)", "frame")
	imgs := make([]*image.RGBA, len(order))
	for pos, i := range order {
		f := r.Frames[i]
		img := rgbImage(f)
		imgs[pos] = img
		name := fmt.Sprintf("frame_%03d.png", pos)
		if err := writePNG(filepath.Join(dir, name), img); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%-16s %10.3f %10.3f %7d\n", name, r.Times[i].Seconds(), f.PTS.Seconds(), f.Index)
	}
	sheet := contactSheet(imgs)
	if err := writePNG(filepath.Join(dir, "contact.png"), sheet); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %d frames and contact.png (%dx%d) to %s\n", len(imgs), sheet.Bounds().Dx(), sheet.Bounds().Dy(), dir)
	return nil
}

func rgbImage(f decode.Frame) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	for i, j := 0, 0; i < len(f.RGB); i, j = i+3, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = f.RGB[i], f.RGB[i+1], f.RGB[i+2], 255
	}
	return img
}

// contactSheet tiles the frames row by row on a near-square grid with a
// 4-pixel dark gap, in the order given.
func contactSheet(imgs []*image.RGBA) *image.RGBA {
	const gap = 4
	w, h := imgs[0].Bounds().Dx(), imgs[0].Bounds().Dy()
	cols := int(math.Ceil(math.Sqrt(float64(len(imgs)))))
	rows := (len(imgs) + cols - 1) / cols
	sheet := image.NewRGBA(image.Rect(0, 0, cols*(w+gap)+gap, rows*(h+gap)+gap))
	for i := range sheet.Pix {
		sheet.Pix[i] = 32
		if i%4 == 3 {
			sheet.Pix[i] = 255
		}
	}
	for i, img := range imgs {
		x, y := gap+(i%cols)*(w+gap), gap+(i/cols)*(h+gap)
		for yy := 0; yy < h; yy++ {
			copy(sheet.Pix[sheet.PixOffset(x, y+yy):sheet.PixOffset(x+w, y+yy)], img.Pix[img.PixOffset(0, yy):img.PixOffset(w, yy)])
		}
	}
	return sheet
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
