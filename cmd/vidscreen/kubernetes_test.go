package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sContainer is the part of a deploy/k8s Job these tests run: its one
// container's command, arguments and environment.
type k8sContainer struct {
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
}

// k8sJob reads deploy/k8s/NAME: its completions and its container.
func k8sJob(t *testing.T, name string) (int, k8sContainer) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", name))
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Spec struct {
			Completions int `yaml:"completions"`
			Template    struct {
				Spec struct {
					Containers []k8sContainer `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatalf("deploy/k8s/%s: %v", name, err)
	}
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].Command) == 0 {
		t.Fatalf("deploy/k8s/%s: %d containers; want one with a command", name, len(cs))
	}
	return job.Spec.Completions, cs[0]
}

// TestKubernetesRecipe runs the containers of deploy/k8s as the pods would,
// without a cluster: each pod of the shard Job (JOB_COMPLETION_INDEX 0 to
// N-1) and then the merge Job's, their commands and environment as the
// manifests write them, with the real vidscreen on PATH and the claim's
// mount, /data, a temporary directory holding a generated world: its items
// in two files (read through the manifests' --items glob), its videos and
// its models. Every flag the containers pass must exist and every path
// resolve, and the merged run must equal an unsharded audit's. Only
// VIDSCREEN_ORT_LIB is replaced, by this machine's ONNX Runtime (the
// image's path is checked against the Dockerfile in deploy/).
func TestKubernetesRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("audits a generated world in every shard; not with -short")
	}
	items, root, modelsDir := worldFixture(t)
	bin := binary(t)
	data := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(data, "items"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{root, "videos"}, {modelsDir, "models"}} {
		if err := os.Symlink(l[0], filepath.Join(data, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	half := len(lines) / 2
	for name, part := range map[string][]string{"a.jsonl": lines[:half], "b.jsonl": lines[half:]} {
		if err := os.WriteFile(filepath.Join(data, "items", name), []byte(strings.Join(part, "")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib := os.Getenv("VIDSCREEN_ORT_LIB")
	if lib == "" {
		if lib, err = filepath.Abs(filepath.Join("..", "..", ".cache", "onnxruntime", "libonnxruntime.so")); err != nil {
			t.Fatal(err)
		}
	}
	atData := func(s string) string { return strings.ReplaceAll(s, "/data", data) }

	// pod runs a container's command as its pod would.
	pod := func(what string, c k8sContainer, extra ...string) string {
		t.Helper()
		args := append(append([]string{}, c.Command[1:]...), c.Args...)
		for i := range args {
			args[i] = atData(args[i])
		}
		cmd := exec.Command(c.Command[0], args...)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		for _, e := range c.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+atData(e.Value))
		}
		cmd.Env = append(append(cmd.Env, extra...), "VIDSCREEN_ORT_LIB="+lib)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, stderr.String())
		}
		return stderr.String()
	}
	n, shard := k8sJob(t, "shard-job.yaml")
	_, merge := k8sJob(t, "merge-job.yaml")
	var flags string
	for _, e := range shard.Env {
		if e.Name == "VIDSCREEN_AUDIT_FLAGS" {
			flags = atData(e.Value)
		}
	}
	if !strings.Contains(flags, "*") {
		t.Fatalf("VIDSCREEN_AUDIT_FLAGS %q: no --items glob to check", flags)
	}
	for k := range n {
		pod(fmt.Sprintf("shard pod %d of %d", k, n), shard, "JOB_COMPLETION_INDEX="+strconv.Itoa(k))
		if _, err := os.Stat(filepath.Join(data, "run", fmt.Sprintf("shard-%d", k), "shard.json")); err != nil {
			t.Errorf("shard pod %d: %v", k, err)
		}
	}
	pod("merge pod", merge)

	whole := filepath.Join(t.TempDir(), "whole")
	if code, _, stderr := runAudit(append(strings.Fields(flags), "--out", whole, "--quiet")...); code != 0 {
		t.Fatalf("unsharded audit %s: exit %d\n%s", flags, code, stderr)
	}
	sameRun(t, whole, filepath.Join(data, "run", "merged"), "between the unsharded audit and the Kubernetes Jobs' merge")
}
