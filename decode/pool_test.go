package decode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func poolJobs(t *testing.T) []Job {
	uniform8, err := ParseSampler("uniform:8")
	if err != nil {
		t.Fatal(err)
	}
	window, err := ParseSampler("window:4,frac:0.1")
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i, name := range []string{"h264_gop30.mp4", "audio_only.m4a", "vp9.webm", "hevc_gop10.mp4", "truncated_moov_at_end.mp4", "odd_size.mp4", "vfr.mkv", "rotated90.mp4"} {
		s := uniform8
		if i%3 == 2 {
			s = window
		}
		jobs = append(jobs, Job{Path: testVideoPath(t, name), Sampler: s, Seed: uint64(i), Size: Size{Short: 48}})
	}
	jobs = append(jobs, Job{Path: "/no/such/video.mp4", Sampler: uniform8})
	return jobs
}

// digest summarises a result: its error kind or its frames' times and pixels.
func digest(r *Result) string {
	if r.Err != nil {
		return fmt.Sprintf("%d %s", r.Index, KindOf(r.Err))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", r.Index)
	for _, f := range r.Frames {
		fmt.Fprintf(&b, " %v/%dx%d/%x", f.PTS, f.Width, f.Height, bytes.Clone(f.RGB[:12]))
		var sum uint64
		for _, c := range f.RGB {
			sum = sum*31 + uint64(c)
		}
		fmt.Fprintf(&b, "/%x", sum)
	}
	return b.String()
}

func TestPoolIsOrderedAndDeterministicAtAnyWorkerCount(t *testing.T) {
	jobs := poolJobs(t)
	var want []string
	for _, workers := range []int{1, 3} {
		var got []string
		p := &Pool{Workers: workers, Threads: 1, Queue: 1}
		err := p.Run(context.Background(), jobs, func(r *Result) error {
			got = append(got, digest(r))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(jobs) {
			t.Fatalf("%d workers: %d results for %d jobs", workers, len(got), len(jobs))
		}
		for i, g := range got {
			if !strings.HasPrefix(g, fmt.Sprint(i)+" ") {
				t.Fatalf("%d workers: result %d is %q, out of order", workers, i, g)
			}
		}
		if want == nil {
			want = got
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("job %d differs between 1 and %d workers:\n%s\n%s", i, workers, want[i], got[i])
			}
		}
	}
	for i, kind := range map[int]Kind{1: KindNoVideoStream, 4: KindTruncated, 8: KindMissing} {
		if !strings.HasSuffix(want[i], " "+string(kind)) {
			t.Errorf("job %d: got %q, want kind %s", i, want[i], kind)
		}
	}
}

func TestPoolStopsOnCancelAndOnYieldError(t *testing.T) {
	jobs := poolJobs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err := (&Pool{Workers: 2, Threads: 1}).Run(ctx, jobs, func(r *Result) error {
		if n++; n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n > 3 {
		t.Errorf("after cancelling at result 2: %d results, error %v; want context.Canceled", n, err)
	}

	stopErr := errors.New("enough")
	n = 0
	err = (&Pool{Workers: 2, Threads: 1}).Run(context.Background(), jobs, func(r *Result) error {
		n++
		return stopErr
	})
	if err != stopErr || n != 1 {
		t.Errorf("yield failing at once: %d results, error %v; want 1 and %v", n, err, stopErr)
	}
}

// On a machine without an NVIDIA driver, asking for NVDEC decodes on the
// CPU, says why once for the whole run, and gives the CPU's frames.
func TestPoolFallsBackFromNVDECOnce(t *testing.T) {
	if g := NewGPU(0); g.Err() == nil {
		g.Close()
		t.Skip("a CUDA device is present; bench/decode_gpu_check.sh compares NVDEC with the CPU")
	}
	jobs := poolJobs(t)[:4]
	var mu sync.Mutex
	var notes []string
	var cpu, gpu []string
	for _, hw := range []string{"", "cuda"} {
		p := &Pool{Workers: 2, Threads: 1, Options: Options{HWAccel: hw}, Notify: func(msg string) {
			mu.Lock()
			notes = append(notes, msg)
			mu.Unlock()
		}}
		err := p.Run(context.Background(), jobs, func(r *Result) error {
			if hw == "" {
				cpu = append(cpu, digest(r))
			} else {
				gpu = append(gpu, digest(r))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "CUDA") {
		t.Errorf("notices %q, want one naming CUDA", notes)
	}
	for i := range cpu {
		if cpu[i] != gpu[i] {
			t.Errorf("job %d: fallback frames differ from the CPU's", i)
		}
	}
}

// Decoders split into one worker set per device give the same results in
// the same order, and every set takes videos from the one queue.
func TestPoolWorkerSetsShareTheJobs(t *testing.T) {
	jobs := poolJobs(t)
	var want []string
	for _, sets := range []int{1, 2, 4} {
		var got []string
		per := make([]int, sets)
		p := &Pool{Workers: 1, Threads: 1, Sets: sets}
		err := p.Run(context.Background(), jobs, func(r *Result) error {
			got = append(got, digest(r))
			if r.Set < 0 || r.Set >= sets {
				t.Fatalf("%d sets: job %d decoded by set %d", sets, r.Index, r.Set)
			}
			per[r.Set]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for d, n := range per {
			if n == 0 {
				t.Errorf("%d sets: set %d decoded no video (per set %v)", sets, d, per)
			}
		}
		if want == nil {
			want = got
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("job %d differs between 1 and %d sets:\n%s\n%s", i, sets, want[i], got[i])
			}
		}
	}
	if err := (&Pool{Sets: 2, GPUs: []*GPU{{}}}).Run(context.Background(), jobs, func(*Result) error { return nil }); err == nil {
		t.Error("one GPU for two worker sets: no error")
	}
}

// Each set opens NVDEC on its own GPU; without a driver each falls back to
// the CPU, saying why once per device, and gives the CPU's frames.
func TestPoolWorkerSetsFallBackPerGPU(t *testing.T) {
	g0, g1 := NewGPU(0), NewGPU(1)
	defer g0.Close()
	defer g1.Close()
	if g0.Err() == nil {
		t.Skip("a CUDA device is present; bench/decode_gpu_check.sh compares NVDEC with the CPU")
	}
	jobs := poolJobs(t)[:4]
	var mu sync.Mutex
	var notes []string
	var cpu, gpu []string
	for _, hw := range []string{"", "cuda"} {
		p := &Pool{Workers: 2, Threads: 1, Sets: 2, Options: Options{HWAccel: hw}, Notify: func(msg string) {
			mu.Lock()
			notes = append(notes, msg)
			mu.Unlock()
		}}
		if hw == "cuda" {
			p.GPUs = []*GPU{g0, g1}
		}
		err := p.Run(context.Background(), jobs, func(r *Result) error {
			if hw == "" {
				cpu = append(cpu, digest(r))
			} else {
				gpu = append(gpu, digest(r))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range notes {
		if !strings.Contains(n, "CUDA device 0") && !strings.Contains(n, "CUDA device 1") {
			t.Errorf("notice %q names no CUDA device", n)
		}
	}
	if len(notes) == 0 || len(notes) > 2 {
		t.Errorf("notices %q, want one per device that was used", notes)
	}
	for i := range cpu {
		if cpu[i] != gpu[i] {
			t.Errorf("job %d: fallback frames differ from the CPU's", i)
		}
	}
}
