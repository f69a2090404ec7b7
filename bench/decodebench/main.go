// Command decodebench times vidscreen's frame sampling for bench/decode.sh:
// for each file it opens the video, samples it (uniform:32 by default),
// decodes and resizes those frames, and prints one tab-separated line per
// file:
//
//	vidscreen  FILE  SECONDS  RETURNED  DECODED  TOTAL_FRAMES
//
// SECONDS is the median over -repeat runs of the whole job (open, probe,
// seek, decode, resize), as a harness would pay it per video. With -pool it
// instead decodes -copies copies of every file on a Pool of -workers
// decoders and prints
//
//	pool  WORKERSxTHREADS  SECONDS  VIDEOS  FRAMES_RETURNED
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"sort"
	"time"

	"github.com/vidscreen/vidscreen/decode"
)

func main() {
	samplerSpec := flag.String("sampler", "uniform:32", "sampler `SPEC`")
	sizeSpec := flag.String("size", "224", "output `SIZE` (see vidscreen frames)")
	threads := flag.Int("threads", 2, "FFmpeg threads per decoder")
	repeat := flag.Int("repeat", 3, "time each file `N` times and report the median")
	pool := flag.Bool("pool", false, "time a Pool over -copies copies of the files instead")
	workers := flag.Int("workers", 1, "decoders in the pool")
	copies := flag.Int("copies", 4, "copies of each file in the pool's job list")
	hwaccel := flag.String("hwaccel", "none", "none or cuda")
	compare := flag.Bool("compare", false, "compare CPU and NVDEC frames instead")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("decodebench: ")
	if err := decode.SetLogLevel("error"); err != nil {
		log.Fatal(err)
	}
	sampler, err := decode.ParseSampler(*samplerSpec)
	if err != nil {
		log.Fatal(err)
	}
	size, err := decode.ParseSize(*sizeSpec)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	opt := decode.Options{Threads: *threads, HWAccel: *hwaccel}
	if *compare {
		for _, f := range flag.Args() {
			if err := compareCPUGPU(ctx, f, sampler, size, *threads, *repeat); err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	if *pool {
		var jobs []decode.Job
		for c := 0; c < *copies; c++ {
			for _, f := range flag.Args() {
				jobs = append(jobs, decode.Job{Path: f, Sampler: sampler, Size: size})
			}
		}
		p := &decode.Pool{Workers: *workers, Threads: *threads, Options: opt,
			Notify: func(msg string) { log.Print(msg) }}
		frames := 0
		start := time.Now()
		err := p.Run(ctx, jobs, func(r *decode.Result) error {
			if r.Err != nil {
				return r.Err
			}
			frames += len(r.Frames)
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("pool\t%dx%d\t%.4f\t%d\t%d\n", *workers, *threads, time.Since(start).Seconds(), len(jobs), frames)
		return
	}
	var dst []decode.Frame
	for _, f := range flag.Args() {
		var secs []float64
		var stats decode.Stats
		var total int
		for r := 0; r < *repeat; r++ {
			start := time.Now()
			d, err := decode.Open(ctx, f, opt)
			if err != nil {
				log.Fatal(err)
			}
			if fb := d.Fallback(); fb != "" && r == 0 {
				log.Printf("%s: NVDEC not used: %s", f, fb)
			}
			in := d.Info()
			times, err := sampler.Times(in, decode.Clip{}, 0)
			if err != nil {
				log.Fatal(err)
			}
			if dst, err = d.Frames(ctx, times, size, dst); err != nil {
				log.Fatal(err)
			}
			stats = d.Stats()
			d.Close()
			secs = append(secs, time.Since(start).Seconds())
			total = in.Frames
		}
		sort.Float64s(secs)
		fmt.Printf("vidscreen\t%s\t%.4f\t%d\t%d\t%d\n", f, secs[len(secs)/2], stats.FramesOut, stats.FramesDecoded, total)
	}
	os.Stdout.Sync()
}

// sampleOnce opens f, samples and decodes it, and returns the frames, the
// median time over repeat runs, and why NVDEC was not used ("" if it was).
func sampleOnce(ctx context.Context, f string, sampler decode.Sampler, size decode.Size, opt decode.Options, repeat int) ([]decode.Frame, float64, string, error) {
	var frames []decode.Frame
	var secs []float64
	fallback := ""
	for r := 0; r < max(repeat, 1); r++ {
		start := time.Now()
		d, err := decode.Open(ctx, f, opt)
		if err != nil {
			return nil, 0, "", err
		}
		fallback = d.Fallback()
		times, err := sampler.Times(d.Info(), decode.Clip{}, 0)
		if err == nil {
			frames, err = d.Frames(ctx, times, size, nil)
		}
		d.Close()
		if err != nil {
			return nil, 0, "", err
		}
		secs = append(secs, time.Since(start).Seconds())
	}
	sort.Float64s(secs)
	return frames, secs[len(secs)/2], fallback, nil
}

func compareCPUGPU(ctx context.Context, f string, sampler decode.Sampler, size decode.Size, threads, repeat int) error {
	cpu, cpuSecs, _, err := sampleOnce(ctx, f, sampler, size, decode.Options{Threads: threads}, repeat)
	if err != nil {
		return err
	}
	gpu := decode.NewGPU(0)
	defer gpu.Close()
	gpuFrames, gpuSecs, fallback, err := sampleOnce(ctx, f, sampler, size, decode.Options{HWAccel: "cuda", GPU: gpu}, repeat)
	if err != nil {
		return err
	}
	samePTS := len(cpu) == len(gpuFrames)
	var sq float64
	var n, maxDiff int
	for i := 0; i < len(cpu) && i < len(gpuFrames); i++ {
		a, b := cpu[i], gpuFrames[i]
		if a.PTS != b.PTS || len(a.RGB) != len(b.RGB) {
			samePTS = false
			continue
		}
		for j := range a.RGB {
			d := int(a.RGB[j]) - int(b.RGB[j])
			sq += float64(d * d)
			maxDiff = max(maxDiff, d, -d)
		}
		n += len(a.RGB)
	}
	psnr := math.Inf(1)
	if sq > 0 {
		psnr = 10 * math.Log10(255*255/(sq/float64(max(n, 1))))
	}
	used := "yes"
	if fallback != "" {
		used = "no: " + fallback
	}
	fmt.Printf("compare\t%s\t%.4f\t%.4f\t%v\t%.2f\t%d\t%s\n", f, cpuSecs, gpuSecs, samePTS, psnr, maxDiff, used)
	return nil
}
