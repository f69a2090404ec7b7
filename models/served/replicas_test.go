package served

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestCheckReplicas: replicas all serving the model pass, one listing
// other models is ErrReplicaModel naming its index and what it serves, a
// replica that does not answer passes (the client takes it out), and one
// server is not asked.
func TestCheckReplicas(t *testing.T) {
	t.Parallel()
	a := openaitest.New(openaitest.Config{Models: []string{"m"}})
	defer a.Close()
	b := openaitest.New(openaitest.Config{Models: []string{"x", "m"}})
	defer b.Close()
	other := openaitest.New(openaitest.Config{Models: []string{"o"}})
	defer other.Close()
	dead := openaitest.New(openaitest.Config{})
	dead.Close()
	for _, tc := range []struct {
		name string
		urls []string
		want string
	}{
		{"all serve it", []string{a.BaseURL(), b.BaseURL()}, ""},
		{"one serves another", []string{a.BaseURL(), b.BaseURL(), other.BaseURL()}, `servers[2]: ` + other.BaseURL() + ` serves ["o"], not "m"`},
		{"one is dead", []string{dead.BaseURL(), a.BaseURL()}, ""},
		{"one server", []string{other.BaseURL()}, ""},
	} {
		cfg := Config{Role: "lm_reader", Server: models.ServerSettings{URL: tc.urls[0], Model: "m", Concurrency: 2, Retries: 0}, URLs: tc.urls}
		err := CheckReplicas(context.Background(), cfg)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrReplicaModel) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want ErrReplicaModel with %q", tc.name, err, tc.want)
		}
	}
	if n := other.Count("/v1/models"); n != 1 {
		t.Errorf("the replica of another model was asked %d times; one server alone is not asked", n)
	}
}

// TestVideosInFlightWithReplicas: server_concurrency is per replica, so
// the feature stage scores more videos at once with replicas, at least one
// a replica and at most 8 a replica for up to 4 replicas (32): fewer videos
// than replicas would leave replicas idle, a video's requests going to one.
func TestVideosInFlightWithReplicas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ conc, replicas, want int }{{8, 1, 1}, {8, 2, 2}, {2, 8, 8}, {32, 2, 4}, {32, 8, 16}, {64, 8, 32}, {128, 8, 32}, {128, 2, 16}} {
		urls := make([]string, tc.replicas)
		for i := range urls {
			urls[i] = fmt.Sprintf("http://127.0.0.1:%d/v1", 1+i)
		}
		v, err := NewVLM(Config{Role: "vlm_reader", Server: models.ServerSettings{URL: urls[0], Model: "m", Concurrency: tc.conc}, URLs: urls})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.VideosInFlight(); got != tc.want {
			t.Errorf("concurrency %d on %d replicas: %d videos in flight, want %d", tc.conc, tc.replicas, got, tc.want)
		}
	}
}
