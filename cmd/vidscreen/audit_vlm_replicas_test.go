package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// vlmReplicaModels writes a models directory whose roles are modelsDir's
// (the ONNX image_text and the others), with lm_reader (fake-lm) and
// vlm_reader (fake-vl) each served by every server of srvs as replicas.
func vlmReplicaModels(t *testing.T, modelsDir string, srvs []*openaitest.Server) string {
	t.Helper()
	man := map[string]map[string]json.RawMessage{}
	b, err := os.ReadFile(filepath.Join(modelsDir, models.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, s := range srvs {
		urls = append(urls, s.BaseURL())
	}
	u, _ := json.Marshal(urls)
	man["roles"]["lm_reader"] = json.RawMessage(fmt.Sprintf(`{"servers": %s, "server_model": "fake-lm", "server_retries": 1, "server_concurrency": 4}`, u))
	man["roles"]["vlm_reader"] = json.RawMessage(fmt.Sprintf(`{"servers": %s, "server_model": "fake-vl", "server_retries": 1, "server_concurrency": 4}`, u))
	dir := filepath.Join(t.TempDir(), "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(modelsDir)
	for _, e := range entries {
		if e.IsDir() {
			os.Symlink(filepath.Join(modelsDir, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	b, _ = json.Marshal(man)
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAuditServedVLMReplicas: an audit of videos whose vlm_reader and
// lm_reader are served by one server and by three replicas writes the
// same outputs; with replicas every replica is asked for frames, and the
// requests whose frames start with the same image (a video's frame set)
// go to one replica, whose prefix cache holds them.
func TestAuditServedVLMReplicas(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	newServers := func(n int) []*openaitest.Server {
		var out []*openaitest.Server
		for range n {
			s := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl"}, Answer: longestOption})
			t.Cleanup(s.Close)
			out = append(out, s)
		}
		return out
	}
	audit := func(srvs []*openaitest.Server) string {
		out := filepath.Join(t.TempDir(), "run")
		code, _, stderr := runWithKey("", "audit", "--items", items, "--out", out, "--videos", root, "--models", vlmReplicaModels(t, modelsDir, srvs),
			"--levels", "option,text,frame", "--workers", "1")
		if code != 0 {
			t.Fatalf("%d servers: exit %d\n%s", len(srvs), code, stderr)
		}
		return out
	}
	one := audit(newServers(1))
	three := newServers(3)
	threeOut := audit(three)
	sameOutputs(t, one, threeOut, "between one server and three replicas")

	// Requests whose frames start with the same image (a video's frame
	// set: the prefix a cache shares) went to one replica.
	where := map[[32]byte]int{}
	for i, s := range three {
		withFrames := 0
		for _, r := range s.Requests() {
			if r.Images() == 0 {
				continue
			}
			withFrames++
			k := sha256.Sum256(r.Messages[0].Images[0].Data)
			if j, seen := where[k]; seen && j != i {
				t.Errorf("requests starting with one frame went to replicas %d and %d", j, i)
			}
			where[k] = i
		}
		t.Logf("replica %d: %d requests, %d with frames", i, len(s.Requests()), withFrames)
		if withFrames == 0 {
			t.Errorf("replica %d was sent no request with frames", i)
		}
	}
	if len(where) < 3 {
		t.Errorf("%d first frames: too few to tell", len(where))
	}
}
