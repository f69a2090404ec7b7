package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// fakeNV12 is an nv12Device on the host: UploadBytes keeps a copy at a
// made-up address, and its Preps' LoadNV12 finds the pictures' planes by
// those addresses, converts them with NV12ToRGB and runs Host's kernels,
// so the check's side of the GPU path (the surfaces' layout, the planes'
// addresses and pitches, slots, batches, digests, rates, frees) runs here.
// swapUV converts with U and V swapped, a fault the check must catch.
type fakeNV12 struct {
	mem    map[uintptr][]byte
	next   uintptr
	swapUV bool
}

func (f *fakeNV12) Name() string { return "fake NV12 device (Host's kernels)" }

func (f *fakeNV12) UploadBytes(b []byte) (uintptr, func() error, error) {
	if f.mem == nil {
		f.mem, f.next = map[uintptr][]byte{}, 1<<20
	}
	addr := f.next
	f.next += uintptr(len(b)) + 4096
	f.mem[addr] = slices.Clone(b)
	return addr, func() error { delete(f.mem, addr); return nil }, nil
}

// at is the uploaded memory from addr to its buffer's end.
func (f *fakeNV12) at(addr uintptr) ([]byte, error) {
	for base, b := range f.mem {
		if addr >= base && addr < base+uintptr(len(b)) {
			return b[addr-base:], nil
		}
	}
	return nil, fmt.Errorf("address %#x was not uploaded", addr)
}

func (f *fakeNV12) OpenPrep() (gpuprep.PrepDevice, error) {
	hd, err := gpuprep.Host{}.OpenPrep()
	return &fakePrepDevice{PrepDevice: hd, f: f}, err
}

type fakePrepDevice struct {
	gpuprep.PrepDevice
	f *fakeNV12
}

func (d *fakePrepDevice) NewPrep(plan *imageprep.Plan, batch int) (gpuprep.Prep, error) {
	p, err := d.PrepDevice.NewPrep(plan, batch)
	return &fakeDevicePrep{Prep: p, f: d.f, slots: make([]imageprep.Frame, batch)}, err
}

type fakeDevicePrep struct {
	gpuprep.Prep
	f     *fakeNV12
	slots []imageprep.Frame
}

func (p *fakeDevicePrep) LoadNV12(slot int, frames []nv12.Frame) error {
	if slot < 0 || slot+len(frames) > len(p.slots) {
		return fmt.Errorf("%d pictures from slot %d for a batch of %d", len(frames), slot, len(p.slots))
	}
	for i, fr := range frames {
		luma, err := p.f.at(fr.Luma)
		if err != nil {
			return err
		}
		chroma, err := p.f.at(fr.Chroma)
		if err != nil {
			return err
		}
		if p.f.swapUV {
			c := slices.Clone(chroma)
			for k := 0; k+1 < len(c); k += 2 {
				c[k], c[k+1] = c[k+1], c[k]
			}
			chroma = c
		}
		pix := make([]byte, 3*fr.Width*fr.Height)
		if err := gpuprep.NV12ToRGB(pix, luma, chroma, fr.LumaPitch, fr.ChromaPitch, fr.Width, fr.Height, fr.Matrix); err != nil {
			return err
		}
		p.slots[slot+i] = imageprep.Frame{Pix: pix, Width: fr.Width, Height: fr.Height}
	}
	return nil
}

func (p *fakeDevicePrep) Run(ctx context.Context, n int) error {
	if err := p.Prep.Load(p.slots[:n]); err != nil {
		return err
	}
	return p.Prep.Run(ctx, n)
}

func (p *fakeDevicePrep) DeviceOutput() (uintptr, int64) { return 0, 0 }

// TestNV12Checks runs the prep_nv12 check end to end on the CPU: the
// reference (NV12ToRGB then imageprep), then the report with no device
// (GPU fields null, Host's kernels equal to the reference), with Host as
// the device (it holds no NV12 pictures: said, host port still checked),
// on the fake device (equal bit for bit, rates, every upload freed), on a
// fake that swaps U and V (not equal, the difference measured), and
// against a reference whose pictures differ.
func TestNV12Checks(t *testing.T) {
	if testing.Short() {
		t.Skip("1080p pictures: not in -short")
	}
	ctx := context.Background()
	checks, err := nv12Reference(ctx, seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(nv12Cases) {
		t.Fatalf("%d reference checks for %d cases", len(checks), len(nv12Cases))
	}
	for i, c := range checks {
		for _, d := range checks[:i] {
			if c.SHA256 == d.SHA256 {
				t.Fatalf("%s and %s give the same tensor: a case tests nothing new", c.Name, d.Name)
			}
		}
	}
	b, err := json.Marshal(&Reference{Seed: seed, CPU: "test", Checks: checks})
	if err != nil {
		t.Fatal(err)
	}
	var ref Reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, res []CheckResult, gpu bool, equal bool) {
		t.Helper()
		if !gpu {
			// The shared-primary row, GPU fields null.
			last := res[len(res)-1]
			if len(res) != len(nv12Cases)+1 || last.Name != "prep_nv12/shared_primary" || last.Equal != nil || last.GPUFramesPS != nil || last.HostPortEqual != nil {
				t.Fatalf("%d results, the last %+v; want the cases and a null shared-primary row", len(res), last)
			}
			res = res[:len(nv12Cases)]
		}
		if len(res) != len(nv12Cases) {
			t.Fatalf("%d results, want %d", len(res), len(nv12Cases))
		}
		for i, r := range res {
			if r.Name != nv12Cases[i].name || r.PrepFigures == nil || r.CPUFramesPS <= 0 || !strings.Contains(r.Target, "20000 frames/s") || !strings.Contains(r.Ceiling, "frames/s") {
				t.Fatalf("%s: %+v", r.Name, r)
			}
			if !gpu {
				if r.HostPortEqual == nil || !*r.HostPortEqual || r.Equal != nil || r.GPUFramesPS != nil || r.GPUSHA256 != nil || r.MaxAbsDiff != nil {
					t.Fatalf("%s: host port equal %v, GPU fields %v %v %v: want true and null", r.Name, r.HostPortEqual, r.Equal, r.GPUFramesPS, r.MaxAbsDiff)
				}
				continue
			}
			if r.Error != "" || r.Equal == nil || *r.Equal != equal || (*r.MaxAbsDiff == 0) != equal || *r.GPUFramesPS <= 0 || *r.GPUSeconds <= 0 || *r.GPUCount != r.CPUCount {
				t.Fatalf("%s: error %q, equal %v (want %v), max abs diff %v, frames/s %v, count %v of %d", r.Name, r.Error, r.Equal, equal, r.MaxAbsDiff, r.GPUFramesPS, r.GPUCount, r.CPUCount)
			}
		}
	}
	t.Run("no device", func(t *testing.T) {
		res, err := nv12Checks(ctx, &ref, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		check(t, res, false, false)
	})
	t.Run("host as the device", func(t *testing.T) {
		res, err := nv12Checks(ctx, &ref, hostDevice{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		check(t, res, false, false)
		if !strings.Contains(res[0].Error, "cannot hold NV12 pictures") {
			t.Fatalf("error %q; want the reason Host ran no NV12 check", res[0].Error)
		}
	})
	for _, swap := range []bool{false, true} {
		t.Run(fmt.Sprintf("fake device, U and V swapped %v", swap), func(t *testing.T) {
			f := &fakeNV12{swapUV: swap}
			shared := false
			res, err := nv12Run(ctx, &ref, f, "", 3, func() error { shared = true; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(nv12Cases)+1 || res[len(res)-1].Name != "prep_nv12/shared_primary" || !shared {
				t.Fatalf("%d results, shared %v; want the cases and the shared-primary row after share ran", len(res), shared)
			}
			check(t, res[:len(nv12Cases)], true, !swap)
			if last := res[len(res)-1]; last.Equal == nil || *last.Equal != !swap || *last.GPUCount != res[0].CPUCount || *last.GPUFramesPS <= 0 || last.CPUSHA256 != res[0].CPUSHA256 {
				t.Fatalf("shared primary: %+v", last)
			}
			if len(f.mem) != 0 {
				t.Fatalf("%d uploads left unfreed", len(f.mem))
			}
		})
	}
	t.Run("fake device, sharing refused", func(t *testing.T) {
		res, err := nv12Run(ctx, &ref, &fakeNV12{}, "", 2, func() error { return fmt.Errorf("flags stuck") })
		if err != nil {
			t.Fatal(err)
		}
		last := res[len(res)-1]
		if last.Equal == nil || *last.Equal || last.Error != "flags stuck" || last.GPUFramesPS != nil {
			t.Fatalf("shared primary: equal %v, error %q, frames/s %v; want false, the reason, no rate", last.Equal, last.Error, last.GPUFramesPS)
		}
	})
	bad := ref
	bad.Checks = slices.Clone(ref.Checks)
	fig := *bad.Checks[2].PrepFigures
	fig.FramesSHA256 = "0"
	bad.Checks[2].PrepFigures = &fig
	if _, err := nv12Checks(ctx, &bad, nil, 2); err == nil || !strings.Contains(err.Error(), "NV12 pictures differ") {
		t.Fatalf("error %v, want the pictures' mismatch", err)
	}
	if _, err := nv12Checks(ctx, &Reference{Seed: seed}, nil, 2); err == nil || !strings.Contains(err.Error(), "no check prep_nv12/1080p_bt709") {
		t.Fatalf("error %v, want the missing check", err)
	}
}

// TestNV12SurfacesExercise: the seeded pictures are laid out as NVDEC's
// (padded pitch, spare rows before the chroma plane) and reach the
// conversion's corners: levels outside the limited range, and colours
// that clip.
func TestNV12SurfacesExercise(t *testing.T) {
	for c, k := range nv12Cases {
		ss := nv12Surfaces(seed, c)
		if digestSurfaces(ss) != digestSurfaces(nv12Surfaces(seed, c)) {
			t.Fatalf("%s: the same seed gave different pictures", k.name)
		}
		var low, high, clipped bool
		for _, s := range ss {
			if s.pitch <= s.w || s.r < s.h || s.r%nv12RowAlign != 0 || len(s.buf) != s.pitch*(s.r+(s.h+1)/2) {
				t.Fatalf("%s: %dx%d at pitch %d with %d rows before chroma, %d bytes", k.name, s.w, s.h, s.pitch, s.r, len(s.buf))
			}
			for y := 0; y < s.h; y++ {
				for _, v := range s.luma()[y*s.pitch : y*s.pitch+s.w] {
					low, high = low || v < 16, high || v > 235
				}
			}
			f, err := s.rgb(nv12.MatrixFor(k.cs, false))
			if err != nil {
				t.Fatal(err)
			}
			clipped = clipped || slices.Contains(f.Pix, 0) && slices.Contains(f.Pix, 255)
		}
		if !low || !high || !clipped {
			t.Fatalf("%s: luma below 16 %v, above 235 %v, clipped RGB %v: want all", k.name, low, high, clipped)
		}
	}
}
