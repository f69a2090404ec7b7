package imageprep

import "testing"

// TestPlanGeometry: the crop region, source rows and tap counts a Plan
// gives for the shapes the GPU path sees; the values the tables give are
// held to Batch by kernels/cuda's tests, which run them.
func TestPlanGeometry(t *testing.T) {
	t.Parallel()
	clip := Config{Type: "CLIPImageProcessor", DoResize: true, ShortestEdge: 224, Resample: Bicubic,
		DoCenterCrop: true, CropHeight: 224, CropWidth: 224, DoRescale: true, RescaleFactor: defaultRescale}
	siglip := Config{Type: "SiglipImageProcessor", DoResize: true, Height: 448, Width: 448, Resample: Bicubic}
	crop := Config{Type: "CLIPImageProcessor", DoCenterCrop: true, CropHeight: 36, CropWidth: 52}
	cases := []struct {
		name                 string
		cfg                  Config
		w, h                 int
		j0, j1, i0, i1       int
		y0, y1, htaps, vtaps int
	}{
		// 1920x1080 -> 398x224, crop columns 87..310: 1080 source rows.
		{"clip 1080p", clip, 1920, 1080, 0, 224, 0, 224, 0, 1080, 21, 21},
		// 1080x1920 -> 224x398 (398.2 truncated), crop rows 87..310: source rows
		// from int((87.5*1920/398) - 2*1920/398 + 0.5) to int(310.5*1920/398 + 2*1920/398 + 0.5).
		{"clip portrait", clip, 1080, 1920, 0, 224, 0, 224, 412, 1508, 21, 21},
		{"siglip 448 from 1080p", siglip, 1920, 1080, 0, 448, 0, 448, 0, 1080, 19, 11},
		// No resize: one tap each way; the 40x30 frame sits in the 52x36 crop at (6, 3).
		{"crop pads", crop, 40, 30, 6, 46, 3, 33, 0, 30, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			pl, err := p.Plan(c.w, c.h)
			if err != nil {
				t.Fatal(err)
			}
			got := []int{pl.J0, pl.J1, pl.I0, pl.I1, pl.Y0, pl.Y1, pl.HTaps, pl.VTaps}
			want := []int{c.j0, c.j1, c.i0, c.i1, c.y0, c.y1, c.htaps, c.vtaps}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("J0 J1 I0 I1 Y0 Y1 HTaps VTaps = %v, want %v", got, want)
				}
			}
			for k := range pl.HN {
				if pl.HStart[k] < 0 || int(pl.HStart[k]+pl.HN[k]) > c.w || int(pl.HN[k]) > pl.HTaps {
					t.Fatalf("column %d reads %d taps from %d of %d", k, pl.HN[k], pl.HStart[k], c.w)
				}
			}
			for k := range pl.VN {
				if pl.VStart[k] < 0 || int(pl.VStart[k]+pl.VN[k]) > pl.Y1-pl.Y0 {
					t.Fatalf("row %d reads %d rows from %d of %d", k, pl.VN[k], pl.VStart[k], pl.Y1-pl.Y0)
				}
			}
		})
	}
	if _, err := (&Processor{}).Plan(0, 5); err == nil {
		t.Fatal("a 0x5 frame got a plan")
	}
}
