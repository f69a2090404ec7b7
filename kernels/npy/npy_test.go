package npy

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

func TestReadFixtures(t *testing.T) {
	t.Parallel()
	inf := float32(math.Inf(1))
	tests := []struct {
		file       string
		rows, cols int
		data       []float32
		err        string
	}{
		{"f4.npy", 2, 3, []float32{1.5, -2, 0.25, 3, 1e-8, 0}, ""},
		{"f2.npy", 3, 2, []float32{1, -0.5, 65504, 5.9604645e-08, inf, -inf}, ""},
		{"fortran.npy", 2, 3, []float32{0, 1, 2, 3, 4, 5}, ""},
		{"vector.npy", 3, 1, []float32{1, 2, 3}, ""},
		{"f8.npy", 1, 2, []float32{0.1, 0.2}, ""},
		{"empty.npy", 0, 4, []float32{}, ""},
		{"int.npy", 0, 0, nil, "descr"},
		{"truncated.npy", 0, 0, nil, "file ends before"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m, err := ReadFile(filepath.Join("testdata", tc.file))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.file) {
					t.Fatalf("error %v, want one naming %s and %q", err, tc.file, tc.err)
				}
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Errorf("error %v is not a FormatError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Rows != tc.rows || m.Cols != tc.cols || !slices.Equal(m.Data, tc.data) {
				t.Errorf("got %dx%d %v, want %dx%d %v", m.Rows, m.Cols, m.Data, tc.rows, tc.cols, tc.data)
			}
		})
	}
}

func TestHalfRoundTripsEveryValue(t *testing.T) {
	t.Parallel()
	for h := 0; h < 1<<16; h++ {
		f := halfToFloat(uint16(h))
		back := floatToHalf(f)
		if math.IsNaN(float64(f)) {
			if back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, back)
			}
			continue
		}
		if back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
	tests := []struct {
		in   float32
		want uint16
	}{
		{1 + 1.0/2048, 0x3c00}, // halfway between 1 and the next half: to even
		{1 + 3.0/2048, 0x3c02}, // halfway, rounds up to even
		{65520, 0x7c00},        // rounds past the largest half
		{65519, 0x7bff},
		{2.9802322e-08, 0x0000}, // half the smallest subnormal: to even (zero)
		{2.9802326e-08, 0x0001}, // just above it
		{float32(math.Copysign(0, -1)), 0x8000},
	}
	for _, tc := range tests {
		if got := floatToHalf(tc.in); got != tc.want {
			t.Errorf("floatToHalf(%v) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
}

func TestWriteRoundTrip(t *testing.T) {
	t.Parallel()
	m := kernels.NewMatrix(5, 3)
	for i := range m.Data {
		m.Data[i] = float32(i)*0.37 - 2
	}
	dir := t.TempDir()
	for _, descr := range []string{Float32, Float16} {
		path := filepath.Join(dir, "m"+descr[1:]+".npy")
		if err := WriteFile(path, m, descr); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range m.Data {
			want := v
			if descr == Float16 {
				want = halfToFloat(floatToHalf(v))
			}
			if got.Data[i] != want {
				t.Fatalf("%s: element %d = %v, want %v", descr, i, got.Data[i], want)
			}
		}
		raw, _ := os.ReadFile(path)
		if hl := int(raw[8]) | int(raw[9])<<8; (10+hl)%64 != 0 {
			t.Errorf("%s: data starts at %d, not 64-byte aligned", descr, 10+hl)
		}
	}
	if err := Write(&bytes.Buffer{}, m, "<i4"); err == nil {
		t.Error("wrote an int dtype")
	}
}

// TestNumpyReadsWhatWeWrite cross-checks the format with numpy itself.
func TestNumpyReadsWhatWeWrite(t *testing.T) {
	t.Parallel()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("no numpy at %s (%v): install python3-numpy to run this check", py, err)
	}
	m := kernels.NewMatrix(4, 2)
	copy(m.Data, []float32{0.5, -1, 3.25, 1e-3, 7, 8, -0, 65504})
	dir := t.TempDir()
	for _, descr := range []string{Float32, Float16} {
		path := filepath.Join(dir, "x.npy")
		if err := WriteFile(path, m, descr); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", `import numpy as np, sys
a = np.load(sys.argv[1])
print(a.dtype.str, a.shape, ' '.join(repr(float(v)) for v in a.astype('f8').ravel()))`, path).CombinedOutput()
		if err != nil {
			t.Fatalf("numpy: %v\n%s", err, out)
		}
		fields := strings.Fields(string(out))
		if len(fields) != 3+len(m.Data) || fields[0] != descr || fields[1]+fields[2] != "(4,2)" {
			t.Fatalf("numpy read %q", out)
		}
		for i, v := range m.Data {
			if descr == Float16 {
				v = halfToFloat(floatToHalf(v))
			}
			got, err := strconv.ParseFloat(fields[3+i], 64)
			if err != nil || got != float64(v) || math.Signbit(got) != math.Signbit(float64(v)) {
				t.Errorf("%s: numpy read element %d as %s, want %v", descr, i, fields[3+i], v)
			}
		}
	}
}

func BenchmarkReadWrite(b *testing.B) {
	m := kernels.NewMatrix(20000, 1024)
	for i := range m.Data {
		m.Data[i] = float32(i%1000) / 1000
	}
	dir := b.TempDir()
	for _, descr := range []string{Float32, Float16} {
		path := filepath.Join(dir, "m.npy")
		b.Run("write"+descr, func(b *testing.B) {
			for b.Loop() {
				if err := WriteFile(path, m, descr); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(m.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		b.Run("read"+descr, func(b *testing.B) {
			for b.Loop() {
				if _, err := ReadFile(path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(m.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestHeaderPromisingTooMuch: a 6 KB file whose header promises 1e8 x 1024
// float32 values (400 GB) is refused, by ReadFile from the file's size before
// anything is allocated, and by Read (a stream of unknown length) having
// allocated no more than the stream held. It used to crash the Go runtime.
func TestHeaderPromisingTooMuch(t *testing.T) {
	hdr := formatHeader(Header{Descr: "<f4", Shape: []int{100000000, 1024}})
	b := append(hdr, make([]byte, 6000)...)
	path := filepath.Join(t.TempDir(), "liar.npy")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var fe *FormatError
	_, err := ReadFile(path)
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "liar.npy") || !strings.Contains(err.Error(), "file ends before") {
		t.Fatalf("ReadFile: %v, want a FormatError naming the file and the shortfall", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Read(bytes.NewReader(b))
	runtime.ReadMemStats(&after)
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "file ends before") {
		t.Fatalf("Read: %v, want a FormatError", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
		t.Errorf("Read allocated %d MB for a %d-byte stream", got>>20, len(b))
	}
	// A stream that does hold its promise is read whole across several
	// growth steps.
	m := kernels.NewMatrix(3, growChunk/2+7)
	for i := range m.Data {
		m.Data[i] = float32(i % 1000)
	}
	var buf bytes.Buffer
	if err := Write(&buf, m, "<f4"); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil || got.Rows != 3 || !slices.Equal(got.Data, m.Data) {
		t.Fatalf("Read of a %dx%d stream: %v", m.Rows, m.Cols, err)
	}
}
