package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireEnv, when "1", turns a missing reference into a failure instead
// of a skip: .ci/run sets it, after make test has installed everything, so
// that CI can never pass by skipping the comparisons.
const requireEnv = "VIDSCREEN_REQUIRE_REFERENCE"

// unavailable skips (or, under requireEnv, fails) a test whose reference
// cannot run here, saying why.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("reference unavailable: %s (%s=1)", why, requireEnv)
	}
	t.Skipf("reference unavailable: %s (make setup-reference installs it)", why)
}

// repoRoot is the repository's root: the tests run in conformance/.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// referenceModules is the node_modules folder make setup-reference fills.
func referenceModules(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("VIDSCREEN_REFERENCE_MODULES"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(t), ".cache", "reference", "node_modules")
}

// runJS runs js/SCRIPT (a CommonJS file that requires
// @huggingface/transformers) under Node with in as JSON on its standard
// input, and decodes its standard output, one JSON value, into out. The
// script finds the package through NODE_PATH, so the scripts stay in the
// repository and the 475 MB of packages in the ignored cache.
func runJS(t *testing.T, script string, in, out any) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "no node on PATH")
	}
	mods := referenceModules(t)
	if _, err := os.Stat(filepath.Join(mods, "@huggingface", "transformers", "package.json")); err != nil {
		unavailable(t, "transformers.js is not installed in "+mods)
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("js", script))
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	run(t, cmd, in, out)
}

// runPillow runs py/SCRIPT with Debian's python3 (python3-pil and
// python3-numpy, which make setup installs: Python transformers' image
// processors resize with Pillow, and these scripts repeat their steps),
// with in as JSON on its standard input and its JSON output into out.
func runPillow(t *testing.T, script string, in, out any) {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		unavailable(t, "no "+py)
	}
	if err := exec.Command(py, "-c", "import PIL, numpy").Run(); err != nil {
		unavailable(t, "python3-pil or python3-numpy is missing")
	}
	cmd := exec.CommandContext(t.Context(), py, filepath.Join("py", script))
	run(t, cmd, in, out)
}

// run feeds in to cmd as JSON and decodes its output into out; a failure
// shows the command's standard error.
func run(t *testing.T, cmd *exec.Cmd, in, out any) {
	t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s: output is not JSON: %v\n%.2000s\n%s", strings.Join(cmd.Args, " "), err, stdout.String(), stderr.String())
	}
}
