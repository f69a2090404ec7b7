package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestModelsCheckServedReplicas: models check asks every replica of an
// entry's servers for /v1/models and the test question, a report each;
// a replica serving another model is a problem naming models.json and the
// field (roles.lm_reader.servers[1]), exit status 2, and the error says it
// too.
func TestModelsCheckServedReplicas(t *testing.T) {
	t.Parallel()
	needORT(t)
	blue := func(*openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Top: map[string]float64{"B": 0.9, "A": 0.1}, Text: "B"}
	}
	a := openaitest.New(openaitest.Config{Models: []string{"qwen"}, Answer: blue})
	defer a.Close()
	b := openaitest.New(openaitest.Config{Models: []string{"qwen"}, Answer: blue})
	defer b.Close()
	other := openaitest.New(openaitest.Config{Models: []string{"llama"}, Answer: blue})
	defer other.Close()
	for _, tc := range []struct {
		name     string
		replicas []string
		code     int
		want     []string
	}{
		{"two replicas of the model", []string{a.BaseURL(), b.BaseURL()}, 0, []string{
			"lm_reader entry 1, replica 1 of 2: served by " + a.BaseURL(), "lm_reader entry 1, replica 2 of 2: served by " + b.BaseURL(), `answered "blue"`}},
		{"a replica of another model", []string{a.BaseURL(), other.BaseURL()}, 2, []string{
			"replica 2 of 2: served by " + other.BaseURL(),
			`models.json: roles.lm_reader.servers[1]: ` + other.BaseURL() + ` serves ["llama"], not "qwen"`,
			`every replica in servers must serve "qwen"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			urls, _ := json.Marshal(tc.replicas)
			man := fmt.Sprintf(`{"roles": {"lm_reader": {"servers": %s, "server_model": "qwen", "server_retries": 0}}}`, urls)
			if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(man), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runModels("", "check", "--roles", "lm_reader", dir)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("report lacks %q:\n%s", w, stdout)
				}
			}
			if tc.code != 0 && !strings.Contains(stderr, filepath.Join(dir, "models.json")+": roles.lm_reader.servers[1]") {
				t.Errorf("the error does not name the file and field:\n%s", stderr)
			}
			code, stdout, _ = runModels("", "check", "--json", "--roles", "lm_reader", dir)
			var rep struct {
				Served []servedCheck `json:"served"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Served) != 2 || code != tc.code {
				t.Fatalf("JSON report (exit %d): %v\n%s", code, err, stdout)
			}
			for i, s := range rep.Served {
				if s.Replica != i+1 || s.Replicas != 2 || s.URL != tc.replicas[i] {
					t.Errorf("JSON report %d: replica %d of %d at %s", i, s.Replica, s.Replicas, s.URL)
				}
			}
		})
	}
}
