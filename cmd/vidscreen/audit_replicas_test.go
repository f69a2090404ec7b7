package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// replicaModels writes a models directory whose lm_reader is fake-lm
// served by the replicas urls (models.json's "servers").
func replicaModels(t *testing.T, urls []string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"roles": map[string]any{"lm_reader": map[string]any{
		"servers": urls, "server_model": "fake-lm", "server_retries": 1, "server_concurrency": 4}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAuditServedReplicas: a text audit whose lm_reader is served by one
// server, by three replicas ("servers"), and by three replicas one of
// which is killed mid-run writes the same items.parquet and cards.json,
// with no item failed; stages.json counts each replica's requests (every
// replica used), and the killed one's failures.
func TestAuditServedReplicas(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 40)
	type endpoint struct {
		URL      string `json:"url"`
		Requests int64  `json:"requests"`
		Failures int64  `json:"failures"`
		Answered int64  `json:"answered"`
	}
	audit := func(t *testing.T, urls []string) (string, []endpoint) {
		out := filepath.Join(t.TempDir(), "run")
		code, _, stderr := runWithKey("", "audit", "--items", items, "--out", out, "--models", replicaModels(t, urls), "--levels", "option,text")
		if code != 0 {
			t.Fatalf("%d replicas: exit %d\n%s", len(urls), code, stderr)
		}
		var stages struct {
			Served []struct {
				Role      string     `json:"role"`
				Failed    int        `json:"failed"`
				Endpoints []endpoint `json:"endpoints"`
			} `json:"served"`
		}
		b, _ := os.ReadFile(filepath.Join(out, rundir.StagesFile))
		if err := json.Unmarshal(b, &stages); err != nil || len(stages.Served) != 1 {
			t.Fatalf("stages.json's served roles: %v\n%s", err, b)
		}
		if s := stages.Served[0]; s.Failed != 0 {
			t.Errorf("%d replicas: %d queries failed", len(urls), s.Failed)
		}
		return out, stages.Served[0].Endpoints
	}
	newServer := func(answer func(*openaitest.Request) openaitest.Reply) *openaitest.Server {
		s := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: answer})
		t.Cleanup(s.Close)
		return s
	}
	one := newServer(longestOption)
	want, eps := audit(t, []string{one.BaseURL()})
	if len(eps) != 1 || eps[0].URL != one.BaseURL() || eps[0].Requests == 0 {
		t.Fatalf("one server's endpoints %+v", eps)
	}

	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("killed=%v", kill), func(t *testing.T) {
			t.Parallel()
			var srvs []*openaitest.Server
			var urls []string
			var n atomic.Int64
			var victim atomic.Pointer[openaitest.Server]
			for i := range 3 {
				answer := longestOption
				if kill && i == 1 {
					answer = func(r *openaitest.Request) openaitest.Reply {
						if n.Add(1) == 10 {
							go func() { // killed mid-run: its connections cut, its port closed
								v := victim.Load()
								v.CloseClientConnections()
								v.Close()
							}()
						}
						return longestOption(r)
					}
				}
				s := newServer(answer)
				if i == 1 {
					victim.Store(s)
				}
				srvs = append(srvs, s)
				urls = append(urls, s.BaseURL())
			}
			out, eps := audit(t, urls)
			for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
				a, _ := os.ReadFile(filepath.Join(want, f))
				b, _ := os.ReadFile(filepath.Join(out, f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s differs between one server and three replicas", f)
				}
			}
			if len(eps) != 3 {
				t.Fatalf("endpoints %+v, want the 3 replicas", eps)
			}
			for i, e := range eps {
				if e.URL != urls[i] || e.Requests == 0 || e.Requests != e.Answered+e.Failures {
					t.Errorf("replica %d: %+v", i, e)
				}
			}
			if kill && (n.Load() < 10 || eps[1].Failures == 0) {
				t.Errorf("the killed replica (%d requests answered) failed nothing: %+v", n.Load(), eps)
			}
			if !kill && eps[0].Failures+eps[1].Failures+eps[2].Failures != 0 {
				t.Errorf("failures without a fault: %+v", eps)
			}
		})
	}
}

// TestAuditServedReplicaOfAnotherModel: an audit whose lm_reader's replicas
// include a server of another model stops before asking anything, exit 2,
// naming models.json and roles.lm_reader.servers[i]; a replica that does
// not answer at the start is no such error (the run takes it out).
func TestAuditServedReplicaOfAnotherModel(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 4)
	good := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption})
	defer good.Close()
	other := openaitest.New(openaitest.Config{Models: []string{"other-lm"}, Answer: longestOption})
	defer other.Close()
	dead := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}})
	dead.Close()
	dir := replicaModels(t, []string{good.BaseURL(), other.BaseURL()})
	code, _, stderr := runWithKey("", "audit", "--items", items, "--out", filepath.Join(t.TempDir(), "run"), "--models", dir, "--levels", "option")
	want := filepath.Join(dir, models.ManifestFile) + `: roles.lm_reader.servers[1]: ` + other.BaseURL() + ` serves ["other-lm"], not "fake-lm"`
	if code != 2 || !bytes.Contains([]byte(stderr), []byte(want)) {
		t.Errorf("exit %d, want 2 with %q:\n%s", code, want, stderr)
	}
	if n := good.Count("/v1/chat/completions") + other.Count("/v1/chat/completions"); n != 0 {
		t.Errorf("%d questions asked before the refusal", n)
	}
	dir = replicaModels(t, []string{good.BaseURL(), dead.BaseURL()})
	if code, _, stderr := runWithKey("", "audit", "--items", items, "--out", filepath.Join(t.TempDir(), "run"), "--models", dir, "--levels", "option"); code != 0 {
		t.Errorf("a dead replica at the start: exit %d\n%s", code, stderr)
	}
}
