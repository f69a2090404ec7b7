package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/vidscreen/vidscreen/decode"
)

func newProbeCommand() *command {
	return &command{
		name:  "probe",
		short: "print what FFmpeg finds in videos, decoding nothing",
		usage: "[--json] VIDEO...",
		long: `Examples:

	vidscreen probe video.mp4
	vidscreen probe --json videos/*.mp4 > probe.json

Probe opens each video and prints its container, codec, coded and display size,
rotation, frame rate, frame count, start and duration (with where the duration came
from), and its keyframes (from the container's index for MP4, else from a scan of the
packets). Nothing is decoded.

A video that cannot be read is reported on stderr with the reason (missing, empty,
truncated, corrupt, no-video-stream, unsupported-codec, timeout) and the others are
still probed; the exit status is then 2. A truncated file (one that ends before what its
container declares) is printed with a TRUNCATED line saying how many frames and seconds
it holds ("truncated", "readable" and "readable_frames" in --json) and also makes the
exit status 2. A video that runs past --timeout makes it 1: the input may be fine.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			asJSON := fs.Bool("json", false, "print one JSON object per video instead of text")
			timeout := fs.Duration("timeout", time.Minute, "give up on a video after `D`")
			ffLog := fs.String("ffmpeg-log", "fatal", "let FFmpeg print its own messages at `LEVEL` (quiet, error, warning, info)")
			return func(ctx context.Context, args []string) error {
				args, err := parseInterspersed(fs, args)
				if err != nil {
					return err
				}
				if len(args) == 0 {
					return &usageError{"name at least one VIDEO"}
				}
				if err := decode.SetLogLevel(*ffLog); err != nil {
					return &usageError{flagErrorText(fs, err)}
				}
				failed, timedOut := 0, 0
				for _, path := range args {
					pctx, cancel := context.WithTimeout(ctx, *timeout)
					in, err := decode.Probe(pctx, path)
					cancel()
					if err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						if decode.KindOf(err) == decode.KindTimeout {
							timedOut++
						} else {
							failed++
						}
						fmt.Fprintf(env.stderr, "vidscreen probe: %v\n", err)
						continue
					}
					if *asJSON {
						err = printProbeJSON(env.stdout, in)
					} else {
						err = printProbeText(env.stdout, in)
					}
					if err != nil {
						return err
					}
					if in.Truncated {
						// What it holds is printed; the file is still bad input.
						failed++
						fmt.Fprintf(env.stderr, "vidscreen probe: %s: %s\n", path, truncatedText(in))
					}
				}
				if timedOut > 0 {
					return fmt.Errorf("%d of %d videos could not be probed (%d ran past --timeout %v)", failed+timedOut, len(args), timedOut, *timeout)
				}
				if failed > 0 {
					return fmt.Errorf("%w: %d of %d videos could not be probed", errBadInput, failed, len(args))
				}
				return nil
			}
		},
	}
}

func printProbeText(w io.Writer, in decode.Info) error {
	dw, dh := in.DisplaySize()
	gop := ""
	if n := len(in.Keyframes); n > 1 {
		gop = fmt.Sprintf(", one every %.2fs on average", (in.Keyframes[n-1]-in.Keyframes[0]).Seconds()/float64(n-1))
	}
	frames := "unknown"
	if in.Frames > 0 {
		frames = fmt.Sprint(in.Frames)
	}
	_, err := fmt.Fprintf(w, `%s
  container  %s
  codec      %s %s, %dx%d coded, %dx%d displayed (rotation %d, pixel aspect %d:%d)
  frames     %s at %.3f fps
  time       starts at %.3fs, lasts %.3fs (from the %s)
  keyframes  %d from the %s%s
`, in.Path, in.Container, in.Codec, in.PixelFormat, in.Width, in.Height, dw, dh, in.Rotation,
		in.AspectNum, in.AspectDen, frames, in.FrameRate, in.Start.Seconds(), in.Duration.Seconds(),
		in.DurationSource, len(in.Keyframes), in.KeyframeSource, gop)
	if err == nil && in.Truncated {
		_, err = fmt.Fprintf(w, "  TRUNCATED  %s\n", truncatedText(in))
	}
	return err
}

// truncatedText says what a truncated file holds.
func truncatedText(in decode.Info) string {
	if in.ReadableFrames > 0 {
		return fmt.Sprintf("truncated: the file ends before what its container declares; readable: %d of %d frames, %.3fs of %.3fs",
			in.ReadableFrames, in.Frames, in.Readable.Seconds(), in.Duration.Seconds())
	}
	return "truncated: the file ends before what its container declares; the frame count and duration above are declared, not held"
}

// probeJSON is the --json form of decode.Info, with times in seconds.
type probeJSON struct {
	Path           string    `json:"path"`
	Container      string    `json:"container"`
	Codec          string    `json:"codec"`
	PixelFormat    string    `json:"pixel_format"`
	Width          int       `json:"width"`
	Height         int       `json:"height"`
	DisplayWidth   int       `json:"display_width"`
	DisplayHeight  int       `json:"display_height"`
	Rotation       int       `json:"rotation"`
	FrameRate      float64   `json:"frame_rate"`
	Frames         int       `json:"frames,omitempty"`
	Start          float64   `json:"start"`
	Duration       float64   `json:"duration"`
	DurationSource string    `json:"duration_source"`
	Keyframes      []float64 `json:"keyframes"`
	KeyframeSource string    `json:"keyframe_source"`
	BitRate        int64     `json:"bit_rate,omitempty"`
	Truncated      bool      `json:"truncated,omitempty"`
	Readable       *float64  `json:"readable,omitempty"` // seconds held, when truncated
	ReadableFrames int       `json:"readable_frames,omitempty"`
}

func printProbeJSON(w io.Writer, in decode.Info) error {
	dw, dh := in.DisplaySize()
	j := probeJSON{Path: in.Path, Container: in.Container, Codec: in.Codec, PixelFormat: in.PixelFormat,
		Width: in.Width, Height: in.Height, DisplayWidth: dw, DisplayHeight: dh, Rotation: in.Rotation,
		FrameRate: in.FrameRate, Frames: in.Frames, Start: in.Start.Seconds(), Duration: in.Duration.Seconds(),
		DurationSource: in.DurationSource, KeyframeSource: in.KeyframeSource, BitRate: in.BitRate,
		Keyframes: make([]float64, len(in.Keyframes))}
	for i, k := range in.Keyframes {
		j.Keyframes[i] = k.Seconds()
	}
	if in.Truncated {
		r := in.Readable.Seconds()
		j.Truncated, j.Readable, j.ReadableFrames = true, &r, in.ReadableFrames
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// parseInterspersed lets flags follow positional arguments, as in
// "vidscreen frames VIDEO --sampler uniform:8": the flag package stops at
// the first argument that is not a flag, so parsing resumes after each.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &usageError{"--help goes before the arguments"}
			}
			return nil, &usageError{flagErrorText(fs, err)}
		}
		args = fs.Args()
	}
	return pos, nil
}
