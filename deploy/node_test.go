package deploy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness/demo"
)

// goBuild builds the module's package pkg into dir and returns the binary.
func goBuild(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command(goBin, "build", "-buildvcs=false", "-o", out, pkg)
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// freePorts returns a base port p such that p .. p+n-1 are free on the
// loopback now.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ok := base+n < 65536
		for i := 1; ok && i < n; i++ {
			m, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			m.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no run of free ports")
	return 0
}

// TestNodeRecipe runs deploy/node's scripts as the README says, with the
// project's test server (internal/fakevllm) in place of vllm on two GPUs:
// serve.sh starts the servers with the recipe's flags and waits for them,
// models.sh writes models.json with the replicas in "servers", audit.sh's
// audit (a text audit of 40 items, its lm_reader served) completes and
// stages.json shows both LM replicas asked (replicas) or the one
// data-parallel endpoint (dp), and stop.sh ends every server.
func TestNodeRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the recipe test builds vidscreen and the fake vLLM and runs a served audit; make test runs it")
	}
	bin := t.TempDir()
	vidscreen := goBuild(t, bin, "./cmd/vidscreen", "vidscreen")
	vllm := goBuild(t, bin, "./internal/fakevllm", "vllm")
	items, err := demo.Head(40)
	if err != nil {
		t.Fatal(err)
	}
	itemsFile := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(itemsFile, items, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode      string
		endpoints int    // the lm_reader's, in models.json and stages.json
		conc      int    // its server_concurrency
		dpFlag    string // the data-parallel flag the servers get
	}{
		{"replicas", 2, 64, ""},
		{"dp", 1, 128, "--data-parallel-size 2"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			run := t.TempDir()
			vlmPort, lmPort := freePorts(t, 2), 0
			for lmPort == 0 || lmPort < vlmPort+2 && lmPort+2 > vlmPort {
				lmPort = freePorts(t, 2)
			}
			env := append(os.Environ(), "VLLM_BIN="+vllm, "VIDSCREEN_BIN="+vidscreen, "VIDSCREEN_GPUS=2", "VIDSCREEN_NODE_MODE="+tc.mode,
				fmt.Sprintf("VIDSCREEN_VLM_PORT=%d", vlmPort), fmt.Sprintf("VIDSCREEN_LM_PORT=%d", lmPort), "VIDSCREEN_SERVE_TIMEOUT=60")
			if lib, err := filepath.Abs(filepath.Join("..", ".cache", "onnxruntime", "libonnxruntime.so")); err == nil && os.Getenv("VIDSCREEN_ORT_LIB") == "" {
				env = append(env, "VIDSCREEN_ORT_LIB="+lib)
			}
			script := func(name string, args ...string) (string, error) {
				cmd := exec.Command("bash", append([]string{filepath.Join("node", name)}, args...)...)
				cmd.Env = env
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				if err != nil {
					err = fmt.Errorf("%s: %w\n%s%s", name, err, out.String(), errb.String())
				}
				return out.String(), err
			}
			t.Cleanup(func() { script("stop.sh", run) })
			if _, err := script("serve.sh", run); err != nil {
				t.Fatal(err)
			}
			// The servers got the recipe's flags, one GPU each (replicas) or
			// every GPU (dp).
			logs, _ := filepath.Glob(filepath.Join(run, "logs", "*.log"))
			if want := map[string]int{"replicas": 4, "dp": 2}[tc.mode]; len(logs) != want {
				t.Fatalf("%d server logs, want %d: %v", len(logs), want, logs)
			}
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				line := string(b)
				for _, w := range []string{"serve Qwen/", "--host 127.0.0.1", "--gpu-memory-utilization 0.", "--enable-prefix-caching", "--max-logprobs 20", "--max-model-len", tc.dpFlag} {
					if !strings.Contains(line, w) {
						t.Errorf("%s: the server was started without %q: %s", filepath.Base(l), w, line)
					}
				}
				name := strings.TrimSuffix(filepath.Base(l), ".log")
				wantDevices := map[string]string{"vlm-0": "0", "vlm-1": "1", "lm-0": "0", "lm-1": "1", "vlm-dp": "0,1", "lm-dp": "0,1"}[name]
				if !strings.Contains(line, "CUDA_VISIBLE_DEVICES="+wantDevices+" ") {
					t.Errorf("%s: %s, want CUDA_VISIBLE_DEVICES=%s", name, line, wantDevices)
				}
			}
			out, err := script("models.sh", run, "-")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out); got != filepath.Join(run, "models") {
				t.Errorf("models.sh printed %q", got)
			}
			var man struct {
				Roles map[string]struct {
					Servers     []string `json:"servers"`
					Concurrency int      `json:"server_concurrency"`
				} `json:"roles"`
			}
			b, _ := os.ReadFile(filepath.Join(run, "models", "models.json"))
			if err := json.Unmarshal(b, &man); err != nil {
				t.Fatal(err)
			}
			if lm := man.Roles["lm_reader"]; len(lm.Servers) != tc.endpoints || lm.Concurrency != tc.conc || lm.Servers[0] != fmt.Sprintf("http://127.0.0.1:%d/v1", lmPort) {
				t.Errorf("models.json's lm_reader %+v", lm)
			}
			if _, err := script("audit.sh", run, "--items", itemsFile, "--levels", "option,text"); err != nil {
				t.Fatal(err)
			}
			var stages struct {
				Served []struct {
					Role      string `json:"role"`
					Failed    int    `json:"failed"`
					Endpoints []struct {
						URL      string `json:"url"`
						Requests int64  `json:"requests"`
						Answered int64  `json:"answered"`
					} `json:"endpoints"`
				} `json:"served"`
			}
			b, _ = os.ReadFile(filepath.Join(run, "audit", "stages.json"))
			if err := json.Unmarshal(b, &stages); err != nil || len(stages.Served) != 1 || stages.Served[0].Role != "lm_reader" {
				t.Fatalf("stages.json's served: %v\n%s", err, b)
			}
			s := stages.Served[0]
			if s.Failed != 0 || len(s.Endpoints) != tc.endpoints {
				t.Fatalf("lm_reader: %d failed, endpoints %+v", s.Failed, s.Endpoints)
			}
			for i, e := range s.Endpoints {
				if e.URL != fmt.Sprintf("http://127.0.0.1:%d/v1", lmPort+i) || e.Requests == 0 || e.Answered != e.Requests {
					t.Errorf("lm_reader's endpoint %d: %+v, want it asked and answering", i, e)
				}
			}
			if _, err := os.Stat(filepath.Join(run, "audit", "items.parquet")); err != nil {
				t.Errorf("the audit wrote no items.parquet: %v", err)
			}
			// stop.sh ends every server.
			if _, err := script("stop.sh", run); err != nil {
				t.Fatal(err)
			}
			pids, _ := os.ReadFile(filepath.Join(run, "pids"))
			deadline := time.Now().Add(10 * time.Second)
			for _, line := range strings.Split(strings.TrimSpace(string(pids)), "\n") {
				var pid int
				fmt.Sscan(line, &pid)
				for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				if syscall.Kill(pid, 0) == nil {
					t.Errorf("server %d still runs after stop.sh", pid)
				}
			}
		})
	}
}

// TestNodeScriptsUsage: the recipe's scripts are valid bash and refuse bad
// usage with exit 2 before starting anything.
func TestNodeScriptsUsage(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"node/serve.sh", "node/stop.sh", "node/models.sh", "node/audit.sh"} {
		if out, err := exec.Command("bash", "-n", f).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", f, err, out)
		}
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		script string
		args   []string
		env    string
	}{
		{"serve.sh", nil, ""},
		{"serve.sh", []string{dir}, "VIDSCREEN_GPUS=eight"},
		{"serve.sh", []string{dir}, "VIDSCREEN_NODE_MODE=tp"},
		{"models.sh", []string{dir}, ""},
		{"models.sh", []string{dir, filepath.Join(dir, "nothing")}, ""},
		{"audit.sh", nil, ""},
		{"audit.sh", []string{dir, "--items", "x"}, ""},
		{"stop.sh", []string{dir}, ""},
	} {
		cmd := exec.Command("bash", append([]string{filepath.Join("node", tc.script)}, tc.args...)...)
		cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin", "VLLM_BIN=/nonexistent", tc.env)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s %q (%s): %v, %s; want exit 2", tc.script, tc.args, tc.env, err, out)
		}
	}
}
