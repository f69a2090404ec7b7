package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requireSlurmEnv, set to 1 (as .ci/run does), turns "Slurm cannot be
// started here" from a skip into a failure.
const requireSlurmEnv = "VIDSCREEN_REQUIRE_SLURM"

// localSlurm starts the single-node Slurm of scripts/slurm-local.sh under a
// temporary directory, stops it when the test ends, and returns the
// environment (SLURM_CONF) its commands need.
func localSlurm(t *testing.T) []string {
	t.Helper()
	cannot := func(format string, args ...any) {
		t.Helper()
		msg := "Slurm cannot be started here: " + fmt.Sprintf(format, args...)
		if os.Getenv(requireSlurmEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (" + requireSlurmEnv + "=1 makes this a failure)")
	}
	if os.Geteuid() != 0 {
		cannot("slurmd runs jobs as their users, so it needs root")
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch"} {
		if _, err := exec.LookPath(bin); err != nil {
			if _, err := os.Stat(filepath.Join("/usr/sbin", bin)); err != nil {
				cannot("%s not found; make setup installs Debian's slurm-wlm and munge", bin)
			}
		}
	}
	// Unix socket paths are short: not under t.TempDir's long names.
	dir, err := os.MkdirTemp("", "slurm-")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "slurm-local.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("bash", script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("slurm-local.sh stop: %v\n%s", err, out)
		}
		os.RemoveAll(dir)
	})
	port := freePorts(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "start", dir)
	cmd.Env = append(os.Environ(), fmt.Sprintf("SLURM_LOCAL_PORT=%d", port))
	out, err := cmd.CombinedOutput()
	if err != nil {
		cannot("scripts/slurm-local.sh start: %v\n%s", err, out)
	}
	return []string{"SLURM_CONF=" + filepath.Join(dir, "slurm.conf")}
}

// freePorts returns a port p such that p and p+1 were free a moment ago.
func freePorts(t *testing.T) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+1))
		l.Close()
		if err == nil {
			l2.Close()
			return p
		}
	}
	t.Fatal("no two free adjacent ports")
	return 0
}

// jobState is the state scontrol reports for a job (for an array, the
// state of every task, space-separated).
func jobState(env []string, id string) (string, error) {
	cmd := exec.Command("scontrol", "show", "job", "-o", id)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("scontrol show job %s: %v: %s", id, err, out)
	}
	var states []string
	for _, f := range strings.Fields(string(out)) {
		if s, ok := strings.CutPrefix(f, "JobState="); ok {
			states = append(states, s)
		}
	}
	return strings.Join(states, " "), nil
}

// TestSlurmRecipe runs deploy/slurm for real: the audit of a generated
// world (videos, items, models) at all five levels as an array job of
// three shards (no GPU asked for:
// VIDSCREEN_GPUS=0) and the dependent merge job, on a single-node Slurm
// started for the test, then compares the merged outputs with an unsharded
// audit's.
func TestSlurmRecipe(t *testing.T) {
	items, root, modelsDir := worldFixture(t)
	slurm := localSlurm(t)
	bin := binary(t)
	tmp := t.TempDir()
	args := []string{"--items", items, "--videos", root, "--models", modelsDir}
	whole := worldAudit(t) // the unsharded audit of args

	run := filepath.Join(tmp, "run")
	submit, err := filepath.Abs(filepath.Join("..", "..", "deploy", "slurm", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), slurm...)
	env = append(env, "VIDSCREEN_BIN="+bin, "VIDSCREEN_GPUS=0")
	if lib, err := filepath.Abs(filepath.Join("..", "..", ".cache", "onnxruntime", "libonnxruntime.so")); err == nil && os.Getenv("VIDSCREEN_ORT_LIB") == "" {
		env = append(env, "VIDSCREEN_ORT_LIB="+lib)
	}
	cmd := exec.Command("bash", append([]string{submit, "3", run, "--"}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, stderr.String())
	}
	ids := strings.Fields(stdout.String())
	if len(ids) != 2 {
		t.Fatalf("submit.sh printed %q, want two job ids", stdout.String())
	}
	logs := func() string {
		var b strings.Builder
		entries, _ := os.ReadDir(filepath.Join(run, "logs"))
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(run, "logs", e.Name()))
			fmt.Fprintf(&b, "== %s\n%s\n", e.Name(), data)
		}
		return b.String()
	}
	deadline := time.Now().Add(8 * time.Minute)
	for {
		state, err := jobState(env, ids[1])
		if err != nil {
			t.Fatal(err)
		}
		if state == "COMPLETED" {
			break
		}
		if state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" && state != "COMPLETING" {
			arr, _ := jobState(env, ids[0])
			t.Fatalf("merge job %s ended %s (array job %s: %s)\n%s", ids[1], state, ids[0], arr, logs())
		}
		if time.Now().After(deadline) {
			arr, _ := jobState(env, ids[0])
			t.Fatalf("merge job %s still %s after 8 minutes (array job %s: %s)\n%s", ids[1], state, ids[0], arr, logs())
		}
		time.Sleep(time.Second)
	}
	if arr, err := jobState(env, ids[0]); err != nil || strings.Trim(strings.ReplaceAll(arr, "COMPLETED", ""), " ") != "" {
		t.Errorf("array job %s: %q, %v; want every task COMPLETED", ids[0], arr, err)
	}
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(run, fmt.Sprintf("shard-%d", i), "shard.json")); err != nil {
			t.Errorf("shard %d: %v", i, err)
		}
	}
	sameRun(t, whole, filepath.Join(run, "merged"), "between the unsharded audit and the Slurm array's merge")
	if t.Failed() {
		t.Log(logs())
	}
}
