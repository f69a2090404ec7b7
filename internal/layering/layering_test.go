package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/vidscreen/vidscreen"

// A rule forbids the packages From (module-relative paths) to depend, by
// any chain of imports, on a package Not names: a module-relative path
// ("models") matches itself and, when it ends in "/...", what is under it;
// a path with a dot in its first element is an outside module's package
// and matches it and its subpackages.
type rule struct {
	from []string
	not  []string
	why  string
}

// The cgo packages a leaf of the harness must not link.
var cgoPackages = []string{"models", "decode", "github.com/yalue/onnxruntime_go", "github.com/asticode/go-astiav", "gorgonia.org/cu", "kernels/cuda", "gpu/cudactx"}

// rules is the flow as it holds today.
var rules = []rule{
	{
		from: []string{"harness/attack", "harness/metrics", "harness/report", "harness/world/truth", "harness/answer", "harness/solve", "harness/dups", "models/letters"},
		not:  cgoPackages,
		why:  "attackers, metrics and reports use leaf types and interfaces, never the cgo packages",
	},
	{
		from: []string{"harness/rundir", "harness/screen", "harness/release", "harness/release/export"},
		not:  append([]string{"harness/run", "harness/features"}, cgoPackages...),
		why:  "screen, select's release and merge read a finished run directory through its format package, never the orchestrator that writes it",
	},
	{
		from: []string{"kernels/...", "kernels"},
		not:  []string{"models/...", "models", "harness/...", "harness", "decode/...", "decode"},
		why:  "kernels sit right of decode and models and import neither, nor the harness",
	},
	{
		from: []string{"models/...", "models"},
		not:  []string{"harness/...", "harness", "kernels/cuda"},
		why:  "models import no harness package, and run their GPU preprocessing without kernels/cuda",
	},
	{
		from: []string{"decode/...", "decode"},
		not:  []string{"models/...", "models", "harness/...", "harness", "kernels/cuda"},
		why:  "decode sits left of models and the harness",
	},
	{
		from: []string{"gpu/cudactx", "models/imageprep/gpuprep"},
		not:  []string{"kernels/...", "kernels", "harness/...", "harness"},
		why:  "the shared CUDA context and the GPU preprocessing need no kernels and no harness",
	},
}

// pkg is what the test reads of `go list -json`.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// loadGraph lists every package of the module and its dependencies with
// tags, keyed by import path.
func loadGraph(t *testing.T, tags string) map[string]*pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the package graph")
	}
	args := []string{"list", "-deps", "-json=ImportPath,Imports,Standard"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command(goBin, append(args, "./...")...)
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	graph := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if !p.Standard {
			graph[p.ImportPath] = &p
		}
	}
	return graph
}

// matches reports whether import path ip is named by pattern.
func matches(ip, pattern string) bool {
	full := pattern
	if first, _, _ := strings.Cut(pattern, "/"); !strings.Contains(first, ".") {
		full = module + "/" + pattern
	}
	if base, ok := strings.CutSuffix(full, "/..."); ok {
		return strings.HasPrefix(ip, base+"/")
	}
	if strings.Contains(strings.Split(pattern, "/")[0], ".") {
		return ip == full || strings.HasPrefix(ip, full+"/")
	}
	return ip == full
}

func matchesAny(ip string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(ip, p) })
}

// violations walks each From package's imports breadth first and returns,
// for each forbidden package it reaches, "A imports B (via ...)" with the
// shortest chain.
func violations(graph map[string]*pkg, r rule) []string {
	var out []string
	var froms []string
	for ip := range graph {
		if matchesAny(ip, r.from) {
			froms = append(froms, ip)
		}
	}
	slices.Sort(froms)
	for _, from := range froms {
		prev := map[string]string{from: ""}
		queue := []string{from}
		var bad []string
		for len(queue) > 0 {
			ip := queue[0]
			queue = queue[1:]
			p := graph[ip]
			if p == nil {
				continue
			}
			for _, im := range p.Imports {
				if _, seen := prev[im]; seen {
					continue
				}
				prev[im] = ip
				if matchesAny(im, r.not) {
					bad = append(bad, im)
					continue // its own imports are reported through it
				}
				queue = append(queue, im)
			}
		}
		slices.Sort(bad)
		for _, b := range bad {
			var chain []string
			for at := prev[b]; at != from; at = prev[at] {
				chain = append(chain, short(at))
			}
			slices.Reverse(chain)
			line := fmt.Sprintf("%s imports %s", short(from), short(b))
			if len(chain) > 0 {
				line += " (via " + strings.Join(chain, " -> ") + ")"
			}
			out = append(out, line)
		}
	}
	return out
}

func short(ip string) string { return strings.TrimPrefix(ip, module+"/") }

// TestImportsFollowTheFlow checks every rule in the default and the cuda
// build. The cuda build's graph needs no CUDA headers to be listed.
func TestImportsFollowTheFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the whole package graph twice")
	}
	for _, tags := range []string{"", "cuda"} {
		graph := loadGraph(t, tags)
		for _, r := range rules {
			var froms int
			for ip := range graph {
				if matchesAny(ip, r.from) {
					froms++
				}
			}
			if froms == 0 {
				t.Errorf("tags %q: no package matches %v: a rule about packages that moved", tags, r.from)
			}
			for _, v := range violations(graph, r) {
				t.Errorf("tags %q: %s: %s", tags, v, r.why)
			}
		}
	}
}

// TestViolationsNameTheChain: a forbidden package reached through others
// is reported with the shortest chain, and one imported directly without.
func TestViolationsNameTheChain(t *testing.T) {
	graph := map[string]*pkg{
		module + "/harness/attack": {ImportPath: module + "/harness/attack", Imports: []string{module + "/kernels", module + "/models/letters"}},
		module + "/kernels":        {ImportPath: module + "/kernels", Imports: []string{module + "/kernels/cuda"}},
		module + "/kernels/cuda":   {ImportPath: module + "/kernels/cuda", Imports: []string{module + "/models"}},
		module + "/models/letters": {ImportPath: module + "/models/letters"},
		module + "/models":         {ImportPath: module + "/models", Imports: []string{"github.com/yalue/onnxruntime_go"}},
	}
	got := violations(graph, rule{from: []string{"harness/attack"}, not: cgoPackages})
	want := []string{"harness/attack imports kernels/cuda (via kernels)"}
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
	got = violations(graph, rule{from: []string{"kernels/cuda"}, not: []string{"models/...", "models"}})
	want = []string{"kernels/cuda imports models"}
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		ip, pattern string
		want        bool
	}{
		{module + "/models", "models", true},
		{module + "/models/letters", "models", false},
		{module + "/models/letters", "models/...", true},
		{"github.com/yalue/onnxruntime_go", "github.com/yalue/onnxruntime_go", true},
		{"gorgonia.org/cu/dnn", "gorgonia.org/cu", true},
		{module + "/decode/nv12", "decode", false},
	} {
		if got := matches(tc.ip, tc.pattern); got != tc.want {
			t.Errorf("matches(%q, %q) = %v, want %v", tc.ip, tc.pattern, got, tc.want)
		}
	}
}
