package cuda

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cuDefines reads kernels.cu's integer #defines.
func cuDefines(t *testing.T, src string) map[string]int {
	t.Helper()
	defs := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^#define (\w+) (\d+)\s*$`).FindAllStringSubmatch(src, -1) {
		defs[m[1]], _ = strconv.Atoi(m[2])
	}
	return defs
}

// ptxEntry is the text of one .entry of a PTX file, from its name to the
// next entry.
func ptxEntry(t *testing.T, ptx, name string) string {
	t.Helper()
	head := ".visible .entry " + name + "("
	i := strings.Index(ptx, head)
	if i < 0 {
		t.Fatalf("kernels.ptx has no entry %s", name)
	}
	body := ptx[i+len(head):]
	if j := strings.Index(body, ".visible .entry "); j >= 0 {
		body = body[:j]
	}
	return body
}

// TestGEMMLaunchMatchesKernels: for each precision, the tile GEMM the Go
// side launches exists in the embedded PTX under its name, its block size
// is the kernel's __launch_bounds__ (in the source and as .maxntid in the
// PTX), its grid covers C with the kernel's tile constants, it asks for
// no dynamic shared memory where the kernel's is static and within the
// 48 KiB a launch gets without opting in, and the mma kernels carry the
// tensor-core instructions and conversions of their precision. Every
// entry Open loads is in the PTX. Needs no nvcc: it reads kernels.cu and
// the committed kernels.ptx (TestPTXIsCurrentAndFits holds that to the
// source where nvcc is present).
func TestGEMMLaunchMatchesKernels(t *testing.T) {
	t.Parallel()
	src, ptx := mustRead(t, "kernels.cu"), mustRead(t, "kernels.ptx")
	defs := cuDefines(t, src)
	for name, want := range map[string]int{
		"GEMM_BM": sgemmTile, "GEMM_BN": sgemmTile,
		"MMA_BM": mmaBM, "MMA_BN": mmaBN, "MMA_KW": mmaKW, "MMA_THREADS": mmaThreads, "MMA_MIN_BLOCKS": mmaMinBlocks,
	} {
		if defs[name] != want {
			t.Errorf("kernels.cu #define %s %d, the Go side %d", name, defs[name], want)
		}
	}
	value := func(s string) int {
		if v, ok := defs[s]; ok {
			return v
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("__launch_bounds__ argument %q is neither a number nor a #define", s)
		}
		return v
	}
	for _, c := range []struct {
		p                  Precision
		tileRows, tileCols string
		minBlocks          int
		instrs             []string
	}{
		{FP32, "GEMM_BM", "GEMM_BN", 0, []string{"fma.rn.f32"}},
		{TF32, "MMA_BM", "MMA_BN", mmaMinBlocks, []string{"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "cvt.rna.tf32.f32"}},
		{BF16, "MMA_BM", "MMA_BN", mmaMinBlocks, []string{"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32"}},
	} {
		k := tileGEMM(c.p)
		t.Run(c.p.String()+"/"+k.name, func(t *testing.T) {
			m := regexp.MustCompile(`__launch_bounds__\((\w+)(?:,\s*(\w+))?\)\s+` + k.name + `\(`).FindStringSubmatch(src)
			if m == nil {
				t.Fatalf("kernels.cu has no __launch_bounds__(...) %s(", k.name)
			}
			if got := value(m[1]); got != k.threads {
				t.Errorf("%s: __launch_bounds__(%d), launched with %d threads", k.name, got, k.threads)
			}
			minBlocks := 0
			if m[2] != "" {
				minBlocks = value(m[2])
			}
			if minBlocks != c.minBlocks {
				t.Errorf("%s: %d blocks per SM in __launch_bounds__, want %d", k.name, minBlocks, c.minBlocks)
			}
			if k.tileRows != defs[c.tileRows] || k.tileCols != defs[c.tileCols] {
				t.Errorf("%s: Go tile %d x %d, kernel %s x %s = %d x %d", k.name, k.tileRows, k.tileCols, c.tileRows, c.tileCols, defs[c.tileRows], defs[c.tileCols])
			}
			body := ptxEntry(t, ptx, k.name)
			if !strings.Contains(body, fmt.Sprintf(".maxntid %d, 1, 1", k.threads)) {
				t.Errorf("%s: the PTX's .maxntid is not %d, 1, 1", k.name, k.threads)
			}
			if c.minBlocks > 0 && !strings.Contains(body, fmt.Sprintf(".minnctapersm %d", c.minBlocks)) {
				t.Errorf("%s: the PTX has no .minnctapersm %d", k.name, c.minBlocks)
			}
			for _, in := range c.instrs {
				if !strings.Contains(body, in) {
					t.Errorf("%s: the PTX has no %s", k.name, in)
				}
			}
			if strings.Contains(body, ".extern .shared") {
				t.Errorf("%s uses dynamic shared memory; the launch asks for %d bytes", k.name, k.sharedBytes)
			}
			static := 0
			for _, s := range regexp.MustCompile(`\.shared \.align \d+ \.b8 \w+\[(\d+)\]`).FindAllStringSubmatch(body, -1) {
				n, _ := strconv.Atoi(s[1])
				static += n
			}
			if k.sharedBytes != 0 || static+k.sharedBytes > 48<<10 {
				t.Errorf("%s: %d bytes of static shared memory and %d dynamic", k.name, static, k.sharedBytes)
			}
			t.Logf("%s: %d threads, %d x %d tiles, %d bytes of shared memory", k.name, k.threads, k.tileRows, k.tileCols, static)
			// The grid covers C and no more.
			for _, s := range [][2]int{{1, 1}, {k.tileRows, k.tileCols}, {k.tileRows + 1, 2*k.tileCols - 1}, {4096, 16384}} {
				gx, gy := k.grid(s[0], s[1])
				if gx*k.tileCols < s[1] || (gx-1)*k.tileCols >= s[1] || gy*k.tileRows < s[0] || (gy-1)*k.tileRows >= s[0] {
					t.Errorf("%s: grid %d x %d for a %d x %d C", k.name, gx, gy, s[0], s[1])
				}
			}
		})
	}
	for _, p := range []Precision{FP32, TF32, BF16} {
		for _, name := range moduleEntries(p) {
			ptxEntry(t, ptx, name)
		}
	}
}
