package deploy_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A dockerfileStage is one FROM of the Dockerfile and its instructions.
type dockerfileStage struct {
	from, name string
	run, copy  []string
	env        map[string]string
}

// parsedDockerfile is what these checks read of ../Dockerfile: the ARG
// defaults, the stages, and the ENV of the last stage (the image's).
type parsedDockerfile struct {
	args   map[string]string
	stages []dockerfileStage
	env    map[string]string
}

// dockerfile reads ../Dockerfile: comments dropped, backslash
// continuations joined, ${ARG} in FROM replaced by the ARG's default.
func dockerfile(t *testing.T) parsedDockerfile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	d := parsedDockerfile{args: map[string]string{}}
	var lines []string
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if rest, ok := strings.CutSuffix(l, "\\"); ok {
			cur += rest + " "
			continue
		}
		lines = append(lines, cur+l)
		cur = ""
	}
	for i, l := range lines {
		op, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(op) {
		case "ARG":
			k, v, _ := strings.Cut(rest, "=")
			if len(d.stages) == 0 {
				d.args[k] = v
			}
		case "FROM":
			f := strings.Fields(rest)
			st := dockerfileStage{from: os.Expand(f[0], func(k string) string { return d.args[k] }), env: map[string]string{}}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			d.stages = append(d.stages, st)
		case "RUN", "COPY", "ENV", "WORKDIR", "ENTRYPOINT", "CMD":
			if len(d.stages) == 0 {
				t.Fatalf("Dockerfile line %d: %s before FROM", i+1, op)
			}
			st := &d.stages[len(d.stages)-1]
			switch strings.ToUpper(op) {
			case "RUN":
				st.run = append(st.run, rest)
			case "COPY":
				st.copy = append(st.copy, rest)
			case "ENV":
				k, v, _ := strings.Cut(rest, "=")
				st.env[k] = v
			}
		default:
			t.Fatalf("Dockerfile: instruction %q these checks do not know", op)
		}
	}
	if len(d.stages) != 2 {
		t.Fatalf("Dockerfile: %d stages, want a build stage and the image", len(d.stages))
	}
	d.env = d.stages[1].env
	return d
}

// TestDockerfile checks the image the manifests name: Debian 12, the Go of
// go.mod, the system packages and ONNX Runtime installed by the scripts of
// `make setup`, the binary on PATH, and VIDSCREEN_ORT_LIB pointing at the
// runtime the build stage fetched and the image carries.
func TestDockerfile(t *testing.T) {
	d := dockerfile(t)
	build, image := d.stages[0], d.stages[1]
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goVersion == nil {
		t.Fatal("go.mod: no go line")
	}
	if want := "golang:" + string(goVersion[1]) + "-bookworm"; build.from != want {
		t.Errorf("Dockerfile: build stage FROM %q, want %q (go.mod's Go on Debian 12)", build.from, want)
	}
	if !strings.HasPrefix(image.from, "debian:12") {
		t.Errorf("Dockerfile: image FROM %q, want Debian 12", image.from)
	}
	runs := func(st dockerfileStage) string { return strings.Join(st.run, " ; ") }
	ortDir := regexp.MustCompile(`scripts/setup-ort\.sh (/\S+)`).FindStringSubmatch(runs(build))
	if ortDir == nil || !strings.Contains(runs(build), "scripts/setup-system.sh --build") {
		t.Fatalf("Dockerfile: the build stage runs %q; want scripts/setup-system.sh --build and scripts/setup-ort.sh DIR", runs(build))
	}
	if !strings.Contains(runs(image), "setup-system.sh --runtime") {
		t.Errorf("Dockerfile: the image runs %q; want setup-system.sh --runtime", runs(image))
	}
	if got, want := d.env["VIDSCREEN_ORT_LIB"], ortDir[1]+"/libonnxruntime.so"; got != want {
		t.Errorf("Dockerfile: ENV VIDSCREEN_ORT_LIB=%q, want %q (where setup-ort.sh put it)", got, want)
	}
	var fromBuild []string
	for _, c := range image.copy {
		if rest, ok := strings.CutPrefix(c, "--from="+build.name+" "); ok {
			fromBuild = append(fromBuild, strings.Join(strings.Fields(rest), " "))
		}
	}
	if !slices.Contains(fromBuild, ortDir[1]+" "+ortDir[1]) || !slices.ContainsFunc(fromBuild, func(c string) bool { return strings.HasSuffix(c, " /usr/local/bin/vidscreen") }) {
		t.Errorf("Dockerfile: the image copies %q from the build stage; want ONNX Runtime's %s and the binary as /usr/local/bin/vidscreen", fromBuild, ortDir[1])
	}
	// Every file the build copies from the context exists.
	for _, st := range d.stages {
		for _, c := range st.copy {
			if strings.HasPrefix(c, "--from=") {
				continue
			}
			f := strings.Fields(c)
			for _, src := range f[:len(f)-1] {
				if _, err := os.Stat(filepath.Join("..", src)); err != nil {
					t.Errorf("Dockerfile: COPY %s: %v", c, err)
				}
			}
		}
	}
	if !strings.Contains(runs(build), "./cmd/vidscreen") {
		t.Errorf("Dockerfile: the build stage does not build ./cmd/vidscreen: %q", runs(build))
	}
}

// TestImageRuntimePackages builds bin/vidscreen and checks that every
// shared library it is linked against comes from a package that
// `setup-system.sh --runtime` (the image's final stage) installs, so that
// the image's binary finds its libraries. It reads the packages from this
// machine's dpkg database and skips where that is not Debian's.
func TestImageRuntimePackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bin/vidscreen; not with -short")
	}
	for _, tool := range []string{"readelf", "dpkg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found (a Debian machine has it): %v", tool, err)
		}
	}
	bin := filepath.Join(t.TempDir(), "vidscreen")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/vidscreen").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("bash", "../scripts/setup-system.sh", "--runtime", "--list").Output()
	if err != nil {
		t.Fatal(err)
	}
	runtime := strings.Fields(string(out))
	dyn, err := exec.Command("readelf", "-d", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	needed := regexp.MustCompile(`\(NEEDED\)\s+Shared library: \[(.+)\]`).FindAllSubmatch(dyn, -1)
	if len(needed) == 0 {
		t.Fatalf("readelf -d %s: no NEEDED entries", bin)
	}
	for _, m := range needed {
		lib := string(m[1])
		if strings.HasPrefix(lib, "libc.so") || strings.HasPrefix(lib, "libm.so") || strings.HasPrefix(lib, "ld-linux") {
			continue // in every Debian image
		}
		owners, _ := exec.Command("dpkg", "-S", "*/"+lib).Output()
		var pkgs []string
		for _, l := range strings.Split(strings.TrimSpace(string(owners)), "\n") {
			if p, _, ok := strings.Cut(l, ":"); ok && !strings.HasSuffix(p, "-dev") {
				pkgs = append(pkgs, p)
			}
		}
		if len(pkgs) == 0 {
			t.Errorf("%s: no package of this machine holds it", lib)
			continue
		}
		if !slices.ContainsFunc(pkgs, func(p string) bool { return slices.Contains(runtime, p) }) {
			t.Errorf("bin/vidscreen needs %s, from %v, which setup-system.sh --runtime (%v) does not install", lib, pkgs, runtime)
		}
	}
}
