// Package deploy_test checks the recipes of deploy/ as shipped: the
// Kubernetes manifests parse and agree with each other and with the
// Dockerfile (the shard count, the volume, the flags, the image and where
// it keeps ONNX Runtime), and the Slurm scripts are valid bash. Both
// recipes run for real in cmd/vidscreen (TestSlurmRecipe,
// TestKubernetesRecipe).
package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vidscreen/vidscreen/harness"
)

// A manifest is the part of a Kubernetes object these checks read.
type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode       string   `yaml:"completionMode"`
		Completions          *int     `yaml:"completions"`
		Parallelism          *int     `yaml:"parallelism"`
		BackoffLimit         *int     `yaml:"backoffLimit"`
		BackoffLimitPerIndex *int     `yaml:"backoffLimitPerIndex"`
		AccessModes          []string `yaml:"accessModes"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes *struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name            string   `yaml:"name"`
					Image           string   `yaml:"image"`
					ImagePullPolicy string   `yaml:"imagePullPolicy"`
					Command         []string `yaml:"command"`
					Args            []string `yaml:"args"`
					Env             []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					Resources struct {
						Limits   map[string]any `yaml:"limits"`
						Requests map[string]any `yaml:"requests"`
					} `yaml:"resources"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// read parses every document of a manifest file; fields these checks do
// not read are ignored, a YAML error fails the test.
func read(t *testing.T, name string) []manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("k8s", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []manifest
	for {
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("k8s/%s: %v", name, err)
		}
		if m.APIVersion == "" || m.Kind == "" || m.Metadata.Name == "" {
			t.Errorf("k8s/%s: a document without apiVersion, kind or metadata.name", name)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatalf("k8s/%s: no document", name)
	}
	return out
}

func env(t *testing.T, m manifest, name string) string {
	t.Helper()
	for _, e := range m.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	t.Errorf("%s: no env %s", m.Metadata.Name, name)
	return ""
}

// optInt prints an optional field: its value, or "unset".
func optInt(p *int) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(*p)
}

func TestKubernetesManifests(t *testing.T) {
	pvc := read(t, "pvc.yaml")[0]
	shards := read(t, "shard-job.yaml")[0]
	merge := read(t, "merge-job.yaml")[0]
	if pvc.Kind != "PersistentVolumeClaim" || !strings.Contains(strings.Join(pvc.Spec.AccessModes, ","), "ReadWriteMany") {
		t.Errorf("pvc.yaml: %s %v; want a ReadWriteMany PersistentVolumeClaim (pods on several nodes share it)", pvc.Kind, pvc.Spec.AccessModes)
	}
	ortLib := dockerfile(t).env["VIDSCREEN_ORT_LIB"]
	for _, job := range []manifest{shards, merge} {
		s := job.Spec.Template.Spec
		if job.APIVersion != "batch/v1" || job.Kind != "Job" || len(s.Containers) != 1 || s.RestartPolicy != "Never" {
			t.Fatalf("%s: %s %s, %d containers, restartPolicy %q; want one batch/v1 Job container, Never", job.Metadata.Name, job.APIVersion, job.Kind, len(s.Containers), s.RestartPolicy)
		}
		if len(s.Volumes) != 1 || s.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Metadata.Name {
			t.Errorf("%s: volumes %+v; want the claim %s", job.Metadata.Name, s.Volumes, pvc.Metadata.Name)
		}
		c := s.Containers[0]
		// The Dockerfile's image at the version it is tagged with; a pinned
		// tag is pulled once per node, where :latest is pulled every time
		// and names whatever was pushed last.
		if want := "vidscreen:" + harness.Version; c.Image != want || c.ImagePullPolicy != "IfNotPresent" {
			t.Errorf("%s: image %q, imagePullPolicy %q; want %q (the Dockerfile's tag, harness.Version), IfNotPresent", job.Metadata.Name, c.Image, c.ImagePullPolicy, want)
		}
		if got := env(t, job, "VIDSCREEN_ORT_LIB"); got != ortLib {
			t.Errorf("%s: VIDSCREEN_ORT_LIB %q, the Dockerfile's %q", job.Metadata.Name, got, ortLib)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != s.Volumes[0].Name || c.VolumeMounts[0].MountPath != "/data" {
			t.Errorf("%s: volume mounts %+v; want the volume at /data", job.Metadata.Name, c.VolumeMounts)
		}
	}

	// The shards: an Indexed Job of N pods, N in VIDSCREEN_SHARDS too, each
	// its index's shard into its own directory, on one GPU.
	if shards.Spec.CompletionMode != "Indexed" || shards.Spec.Completions == nil || shards.Spec.Parallelism == nil {
		t.Fatalf("shard-job.yaml: completionMode %q, completions %v, parallelism %v; want an Indexed Job", shards.Spec.CompletionMode, shards.Spec.Completions, shards.Spec.Parallelism)
	}
	n := *shards.Spec.Completions
	// Retries per index: with one backoffLimit for the Job, one shard that
	// keeps failing uses up the retries of all the others. Bad input
	// (exit 2) fails its index without a retry.
	if shards.Spec.BackoffLimitPerIndex == nil || shards.Spec.BackoffLimit != nil {
		t.Errorf("shard-job.yaml: backoffLimit %s, backoffLimitPerIndex %s; want backoffLimitPerIndex alone", optInt(shards.Spec.BackoffLimit), optInt(shards.Spec.BackoffLimitPerIndex))
	}
	failIndex := false
	for _, r := range shards.Spec.PodFailurePolicy.Rules {
		if e := r.OnExitCodes; r.Action == "FailIndex" && e != nil && e.ContainerName == "shard" && e.Operator == "In" && slices.Contains(e.Values, 2) {
			failIndex = true
		}
	}
	if !failIndex {
		t.Errorf("shard-job.yaml: no podFailurePolicy rule failing the index of a shard that exits 2 (bad input)")
	}
	if got := env(t, shards, "VIDSCREEN_SHARDS"); got != strconv.Itoa(n) {
		t.Errorf("shard-job.yaml: VIDSCREEN_SHARDS %q, completions %d: they must agree", got, n)
	}
	if got := env(t, merge, "VIDSCREEN_SHARDS"); got != strconv.Itoa(n) {
		t.Errorf("merge-job.yaml: VIDSCREEN_SHARDS %q, the shard Job's completions %d: they must agree", got, n)
	}
	sc := shards.Spec.Template.Spec.Containers[0]
	script := strings.Join(append(sc.Command, sc.Args...), " ")
	for _, want := range []string{"vidscreen audit", `--shard "$JOB_COMPLETION_INDEX/$VIDSCREEN_SHARDS"`, `--out "/data/run/shard-$JOB_COMPLETION_INDEX"`, "$VIDSCREEN_AUDIT_FLAGS"} {
		if !strings.Contains(script, want) {
			t.Errorf("shard-job.yaml: the command %q lacks %q", script, want)
		}
	}
	flags := env(t, shards, "VIDSCREEN_AUDIT_FLAGS")
	for _, f := range strings.Fields(flags) {
		if f == "--out" || f == "--shard" || strings.HasPrefix(f, "--out=") || strings.HasPrefix(f, "--shard=") {
			t.Errorf("shard-job.yaml: VIDSCREEN_AUDIT_FLAGS sets %s, which the command sets per pod", f)
		}
	}
	if _, ok := sc.Resources.Limits["nvidia.com/gpu"]; !ok {
		t.Errorf("shard-job.yaml: no nvidia.com/gpu limit; each shard runs on one GPU")
	}

	// The merge lists the same N shard directories and writes the merged
	// run; it needs no GPU.
	mc := merge.Spec.Template.Spec.Containers[0]
	if _, ok := mc.Resources.Limits["nvidia.com/gpu"]; ok {
		t.Errorf("merge-job.yaml asks for a GPU; the merge needs none")
	}
	// Run the merge's script with a vidscreen that prints its arguments.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "vidscreen"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755)
	if len(mc.Command) < 2 || mc.Command[0] != "/bin/sh" || len(mc.Args) != 1 {
		t.Fatalf("merge-job.yaml: command %q args %d; want /bin/sh -c SCRIPT", mc.Command, len(mc.Args))
	}
	cmd := exec.Command(mc.Command[0], append(mc.Command[1:], mc.Args[0])...)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "VIDSCREEN_SHARDS="+strconv.Itoa(n))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("merge-job.yaml's script: %v", err)
	}
	want := []string{"merge"}
	for i := range n {
		want = append(want, "/data/run/shard-"+strconv.Itoa(i))
	}
	want = append(want, "--out", "/data/run/merged", "--log-format", "json")
	if got := strings.Fields(string(out)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("merge-job.yaml runs vidscreen %q, want %q", got, want)
	}
	// And the shard script, as pod 2 of N, with an --items glob that
	// matches two files: vidscreen must get the glob, not the two names
	// ("unexpected arguments"), and expand it itself.
	items := filepath.Join(dir, "items")
	os.Mkdir(items, 0o755)
	for _, f := range []string{"a.jsonl", "b.jsonl"} {
		os.WriteFile(filepath.Join(items, f), nil, 0o644)
	}
	glob := filepath.Join(items, "*.jsonl")
	sc2 := exec.Command(sc.Command[0], append(sc.Command[1:], sc.Args[0])...)
	sc2.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "VIDSCREEN_SHARDS="+strconv.Itoa(n), "JOB_COMPLETION_INDEX=2",
		"VIDSCREEN_AUDIT_FLAGS=--items "+glob+" --levels text")
	out, err = sc2.Output()
	if err != nil {
		t.Fatalf("shard-job.yaml's script: %v", err)
	}
	wantShard := []string{"audit", "--items", glob, "--levels", "text", "--shard", "2/" + strconv.Itoa(n), "--out", "/data/run/shard-2", "--log-format", "json"}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, wantShard) {
		t.Errorf("shard-job.yaml runs vidscreen with arguments %q, want %q", got, wantShard)
	}
}

// TestSlurmScripts checks that the Slurm recipe and the local cluster's
// script are valid bash and that submit.sh refuses bad usage before
// submitting anything.
func TestSlurmScripts(t *testing.T) {
	for _, f := range []string{"slurm/submit.sh", "slurm/shard.sbatch", "slurm/merge.sbatch", "k8s/run.sh", "../scripts/slurm-local.sh"} {
		if out, err := exec.Command("bash", "-n", f).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", f, err, out)
		}
	}
	for _, args := range [][]string{{}, {"2", "run"}, {"0", "run", "--", "--items", "x"}, {"two", "run", "--", "--items", "x"}, {"2", "run", "--items", "x"}} {
		cmd := exec.Command("bash", append([]string{"slurm/submit.sh"}, args...)...)
		cmd.Env = append(os.Environ(), "PATH=/nonexistent") // no sbatch: nothing may be submitted
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("submit.sh %q: %v, %s; want exit 2 (usage)", args, err, out)
		}
	}
}
