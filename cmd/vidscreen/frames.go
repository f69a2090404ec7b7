package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

func newFramesCommand() *command {
	return &command{
		name:  "frames",
		short: "write the frames a sampler picks from a video, and a contact sheet",
		usage: "VIDEO --out DIR [--sampler SPEC] [--size S] [flags]",
		long: `Examples:

	vidscreen frames video.mp4 --out frames/
	vidscreen frames video.mp4 --out frames/ --sampler uniform:32 --size 224

Frames decodes the frames that a sampler picks from VIDEO, resized as the models
will see them, and writes them to DIR as frame_000.png, frame_001.png, ... in the
sampler's order, plus contact.png, all of them tiled on one sheet, each tile labelled with
the time asked for, so a person can look at what the models will see. With --format npy
it writes instead one array, frames.npy, of shape (N, H, W, 3) and dtype uint8, as
numpy.load reads it. It prints one line per frame: its position, the time asked for, the
time of the frame returned (the last frame shown at or before it) and its number.

Samplers: uniform:N, centre, fps:R[,max:M], window:N,frac:F, half:1|2[,n:N],
offset:K[,n:N][,steps:S], times:T1,T2,... (seconds from the clip start). --shuffle
permutes the decoded frames with the seed, as the shuffled-frames probe does.

Limits: at most 4,096 frames per run, and the frames held at once (3 bytes per output
pixel per frame, plus a frame being encoded per core) must fit --max-memory (default
4 GiB: 4,096 frames at --size 224, about 40 at --size native of an 8K video); a sampler
that picks more, or a size that makes them larger, is bad usage (exit 2), checked from
the probe before anything is decoded. Ctrl-C or SIGTERM stops the command between two
frames, decoded or written, with a non-zero exit.
Files of an earlier run left in DIR (frame_NNN.png past the new set, and the other
format's contact.png or frames.npy) are removed, and the command says which. A truncated
video is sampled over what it declares and fails with the reason when a frame lies past
what it holds (vidscreen probe says how much).
Exit status: 2 for a bad command line or a video that cannot be read, 1 when the video
ran past --timeout or writing failed.`,
		groups: []flagGroup{
			{"Which frames", []string{"sampler", "clip", "seed", "shuffle"}},
			{"Output", []string{"out", "format", "size"}},
			{"Decoding and run control", []string{"hwaccel", "threads", "timeout", "max-memory", "ffmpeg-log"}},
		},
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
			format := fs.String("format", "png", "write `FORMAT`: png (one file per frame and a contact sheet labelled with the times) or npy (one (N, H, W, 3) uint8 array, frames.npy)")
			ffLog := fs.String("ffmpeg-log", "fatal", "let FFmpeg print its own messages at `LEVEL` (quiet, error, warning, info)")
			maxMemory := fs.Float64("max-memory", 4, "refuse a run whose frames would hold more than `GIB` gibibytes")
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
				if !(*maxMemory > 0) || math.IsInf(*maxMemory, 0) {
					return &usageError{fmt.Sprintf("--max-memory %v: want a positive number of GiB", *maxMemory)}
				}
				in, n, err := countFrames(ctx, args[0], sampler, clip, *seed)
				if err != nil {
					return err
				}
				if n > maxFramesOut {
					return &usageError{fmt.Sprintf("--sampler %s picks %d frames from %s; frames writes at most %d", sampler, n, args[0], maxFramesOut)}
				}
				if need := framesMemory(in, size, n); need > *maxMemory*(1<<30) {
					w, h := size.Of(in.DisplaySize())
					return &usageError{fmt.Sprintf("--sampler %s picks %d frames of %dx%d (--size %s) from %s: %.1f GiB held at once, over --max-memory %g GiB; pick fewer frames, a smaller --size, or raise --max-memory",
						sampler, n, w, h, *sizeSpec, args[0], need/(1<<30), *maxMemory)}
				}
				pool := &decode.Pool{Workers: 1, Threads: *threads,
					Options: decode.Options{HWAccel: *hwaccel, Timeout: *timeout},
					Notify:  func(msg string) { fmt.Fprintln(env.stderr, msg) }}
				job := decode.Job{Path: args[0], Clip: clip, Sampler: sampler, Seed: *seed, Size: size}
				if *format != "png" && *format != "npy" {
					return &usageError{fmt.Sprintf("--format %q: want png or npy", *format)}
				}
				return pool.Run(ctx, []decode.Job{job}, func(r *decode.Result) error {
					if r.Err != nil {
						switch decode.KindOf(r.Err) {
						case decode.KindTimeout:
							return fmt.Errorf("%v (gave up after --timeout %v; the video may be fine: allow more time)", r.Err, *timeout)
						case "":
							return r.Err
						}
						return fmt.Errorf("%w: %v", errBadInput, r.Err)
					}
					order := make([]int, len(r.Frames))
					for i := range order {
						order[i] = i
					}
					if *shuffle {
						order = decode.Shuffle(len(r.Frames), *seed)
					}
					return writeFrames(ctx, env, *out, r, order, *format)
				})
			}
		},
	}
}

// maxFramesOut bounds the frames one run writes: each is held in memory
// as RGB until the contact sheet is drawn.
const maxFramesOut = 4096

// countFrames says how many frames sampler picks from the video, from a
// probe (nothing is decoded), and returns the probe.
func countFrames(ctx context.Context, path string, sampler decode.Sampler, clip decode.Clip, seed uint64) (decode.Info, int, error) {
	in, err := decode.Probe(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return in, 0, ctx.Err()
		}
		return in, 0, fmt.Errorf("%w: %v", errBadInput, err)
	}
	times, err := sampler.Times(in, clip, seed)
	if err != nil {
		return in, 0, fmt.Errorf("%w: %s: %v", errBadInput, path, err)
	}
	return in, len(times), nil
}

// framesMemory is the memory, in bytes, that n frames of the video at size
// take in this command: every frame's RGB (3 bytes a pixel) is held until
// the contact sheet is drawn, one RGBA copy (4 bytes a pixel) per core is
// being encoded, and the sheet is at most maxSheetSide squared in RGBA.
// 4,096 frames of an 8K video natively asked for 400 GB and died in a Go
// fatal out-of-memory; the decoder's own frame buffers are not counted.
func framesMemory(in decode.Info, size decode.Size, n int) float64 {
	w, h := size.Of(in.DisplaySize())
	px := float64(w) * float64(h)
	return 3*px*float64(n) + 4*px*float64(min(n, runtime.GOMAXPROCS(0))) + 4*maxSheetSide*maxSheetSide
}

// maxClipSeconds bounds --clip: time.Duration holds about 292 years.
const maxClipSeconds = 1e9

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
		if err != nil || !(v >= 0 && v <= maxClipSeconds) {
			return c, fmt.Errorf("--clip %q: %q is not a number of seconds from 0 to %g", s, p.text, float64(maxClipSeconds))
		}
		*p.dst = time.Duration(v * 1e9)
	}
	if c.End > 0 && c.End <= c.Start {
		return c, fmt.Errorf("--clip %q: the end is not after the start", s)
	}
	return c, nil
}

func writeFrames(ctx context.Context, env *environment, dir string, r *decode.Result, order []int, format string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%s: %d frames of %dx%d, sampler %s\n", r.Job.Path, len(r.Frames), r.Frames[0].Width, r.Frames[0].Height, r.Job.Sampler)
	frames := make([]decode.Frame, len(order))
	asked := make([]time.Duration, len(order))
	for pos, i := range order {
		frames[pos], asked[pos] = r.Frames[i], r.Times[i]
	}
	var written string
	keep := len(frames)
	if format == "npy" {
		if err := writeFramesNPY(filepath.Join(dir, framesNPY), frames); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%-16s %10s %10s %7s\n", "index", "asked (s)", "shown (s)", "frame")
		for pos, f := range frames {
			fmt.Fprintf(env.stdout, "%-16d %10.3f %10.3f %7d\n", pos, asked[pos].Seconds(), f.PTS.Seconds(), f.Index)
		}
		h, w := frames[0].Height, frames[0].Width
		written = fmt.Sprintf("%s (%d, %d, %d, 3) uint8", framesNPY, len(frames), h, w)
		keep = 0 // no frame PNG belongs to this run
	} else {
		if err := writeFramePNGs(ctx, dir, frames, asked); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%-16s %10s %10s %7s\n", "file", "asked (s)", "shown (s)", "frame")
		for pos, f := range frames {
			fmt.Fprintf(env.stdout, "%-16s %10.3f %10.3f %7d\n", frameName(pos), asked[pos].Seconds(), f.PTS.Seconds(), f.Index)
		}
		written = fmt.Sprintf("%d frames and %s", len(frames), contactPNG)
	}
	fmt.Fprintf(env.stdout, "wrote %s to %s\n", written, dir)
	stale, err := removeStaleFrames(dir, keep, format)
	if len(stale) > 0 {
		what := "frames"
		for _, n := range stale {
			if !strings.HasPrefix(n, "frame_") {
				what = "files"
			}
		}
		fmt.Fprintf(env.stdout, "removed %d %s of an earlier run: %s\n", len(stale), what, strings.Join(stale, " "))
	}
	return err
}

// The files frames writes besides frame_NNN.png.
const (
	contactPNG = "contact.png"
	framesNPY  = "frames.npy"
)

// writeFramePNGs encodes the frames and the contact sheet, labelled with
// the times asked for, on every core. PNG encoding, not decoding, was the
// cost of this command: zlib at its default level spent several times the
// decoder's time on a few dozen small frames, so frames use the fastest
// level (the files are for looking at, and stay lossless). A cancelled ctx
// (Ctrl-C, SIGTERM) stops it before the next file: thousands of frames
// took minutes to write, with the signal ignored until the last.
func writeFramePNGs(ctx context.Context, dir string, frames []decode.Frame, asked []time.Duration) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	g.Go(func() error {
		if err := gctx.Err(); err != nil {
			return err
		}
		return writePNG(filepath.Join(dir, contactPNG), contactSheet(frames, asked))
	})
	for pos, f := range frames {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return writePNG(filepath.Join(dir, frameName(pos)), rgbImage(f))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// writeFramesNPY writes the frames as one (N, H, W, 3) uint8 array, as
// numpy.stack of the PIL images would hold them.
func writeFramesNPY(path string, frames []decode.Frame) error {
	h, w := frames[0].Height, frames[0].Width
	chunks := make([][]byte, len(frames))
	for i, f := range frames {
		chunks[i] = f.RGB[:h*w*3]
	}
	return atomicfile.Write(path, func(wr io.Writer) error { return npy.WriteUint8(wr, []int{len(frames), h, w, 3}, chunks...) })
}

func frameName(pos int) string { return fmt.Sprintf("frame_%03d.png", pos) }

// removeStaleFrames deletes what an earlier run left in dir that this one
// did not write: frame_NNN.png numbered n or more, and the other format's
// files (contact.png with frames.npy, frames.npy with PNGs), so that the
// folder holds exactly this run's set. It returns their names in order.
func removeStaleFrames(dir string, n int, format string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		num, ok := strings.CutPrefix(e.Name(), "frame_")
		num, ok2 := strings.CutSuffix(num, ".png")
		k, err := strconv.Atoi(num)
		isFrame := ok && ok2 && err == nil && e.Name() == frameName(k)
		other := (format == "npy" && e.Name() == contactPNG) || (format != "npy" && e.Name() == framesNPY)
		if !(isFrame && k >= n) && !other {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return stale, fmt.Errorf("remove the stale %s: %w", e.Name(), err)
		}
		stale = append(stale, e.Name())
	}
	return stale, nil
}

func rgbImage(f decode.Frame) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	for i, j := 0, 0; i < len(f.RGB); i, j = i+3, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = f.RGB[i], f.RGB[i+1], f.RGB[i+2], 255
	}
	return img
}

// maxSheetSide bounds the contact sheet's width and height in pixels (64
// MB of RGBA at most): with thousands of frames the tiles are shrunk.
const maxSheetSide = 4096

// contactSheet tiles the frames row by row on a near-square grid with a
// 4-pixel dark gap, in the order given, each labelled in its top-left
// corner with the time asked for, in seconds.
func contactSheet(frames []decode.Frame, asked []time.Duration) *image.RGBA {
	const gap = 4
	w, h := frames[0].Width, frames[0].Height
	cols := int(math.Ceil(math.Sqrt(float64(len(frames)))))
	rows := (len(frames) + cols - 1) / cols
	// Tiles shrink (nearest pixel) when the sheet would pass maxSheetSide.
	scale := min(1, float64(maxSheetSide-gap*(cols+1))/float64(cols*w), float64(maxSheetSide-gap*(rows+1))/float64(rows*h))
	tw, th := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	sheet := image.NewRGBA(image.Rect(0, 0, cols*(tw+gap)+gap, rows*(th+gap)+gap))
	for i := range sheet.Pix {
		sheet.Pix[i] = 32
		if i%4 == 3 {
			sheet.Pix[i] = 255
		}
	}
	labelScale := max(1, th/80)
	for i, f := range frames {
		x, y := gap+(i%cols)*(tw+gap), gap+(i/cols)*(th+gap)
		for yy := 0; yy < th; yy++ {
			dst := sheet.Pix[sheet.PixOffset(x, y+yy):sheet.PixOffset(x+tw, y+yy)]
			sy := yy * h / th
			for xx := 0; xx < tw; xx++ {
				k := 3 * (sy*w + xx*w/tw)
				dst[4*xx], dst[4*xx+1], dst[4*xx+2] = f.RGB[k], f.RGB[k+1], f.RGB[k+2]
			}
		}
		drawLabel(sheet, image.Rect(x, y, x+tw, y+th), strconv.FormatFloat(asked[i].Seconds(), 'f', 2, 64)+"s", labelScale)
	}
	return sheet
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(bw, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
