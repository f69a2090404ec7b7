package openai

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// replicaClient is a client of the given test servers as replicas.
func replicaClient(t testing.TB, srvs []*openaitest.Server, cfg Config) *Client {
	t.Helper()
	for _, s := range srvs {
		cfg.BaseURLs = append(cfg.BaseURLs, s.BaseURL())
	}
	cfg.Model, cfg.Chat = "test-model", true
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var videoOf = regexp.MustCompile(`of video (\d+)\?`)

// TestReplicasAnswerAsOneServer: the same groups asked of one server, of
// three replicas, and of three replicas one of which dies mid-run give the
// same answers, none failed; every replica is used while up, a video's
// frames go to one replica, and the per-endpoint counts add up to the
// call's.
func TestReplicasAnswerAsOneServer(t *testing.T) {
	t.Parallel()
	groups := testGroups(t, 12)
	ask := func(t *testing.T, srvs []*openaitest.Server, store bool) ([]byte, Stats) {
		cfg := Config{MaxConcurrent: 2}
		if store {
			st, err := OpenStore(filepath.Join(t.TempDir(), "replies"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg.Store = st
		}
		c := replicaClient(t, srvs, cfg)
		res, stats := c.AskGroups(context.Background(), groups)
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b, stats
	}
	one := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer one.Close()
	want, _ := ask(t, []*openaitest.Server{one}, false)

	for _, tc := range []struct {
		name  string
		kill  bool
		store bool
	}{
		{"three replicas", false, false},
		{"three replicas through the store", false, true},
		{"one of three killed mid-run", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var srvs []*openaitest.Server
			var killed atomic.Bool
			var victim *openaitest.Server
			var n atomic.Int64
			for i := range 3 {
				cfg := openaitest.Config{Answer: believes("blue"), Delay: time.Millisecond}
				if tc.kill && i == 1 {
					answer := cfg.Answer
					cfg.Answer = func(r *openaitest.Request) openaitest.Reply {
						if n.Add(1) == 4 && killed.CompareAndSwap(false, true) {
							go func() {
								victim.CloseClientConnections()
								victim.Close()
							}()
						}
						return answer(r)
					}
				}
				s := openaitest.New(cfg)
				defer s.Close()
				if i == 1 {
					victim = s
				}
				srvs = append(srvs, s)
			}
			got, stats := ask(t, srvs, tc.store)
			if string(got) != string(want) {
				t.Fatalf("answers differ from one server's:\n%s\nwant\n%s", got, want)
			}
			if stats.Failed != 0 || stats.Queries != 12*9 {
				t.Errorf("queries %d failed %d, want 108 and 0", stats.Queries, stats.Failed)
			}
			if len(stats.Endpoints) != 3 {
				t.Fatalf("endpoints %+v", stats.Endpoints)
			}
			var sum, fails int64
			for i, e := range stats.Endpoints {
				if e.URL != srvs[i].BaseURL() {
					t.Errorf("endpoint %d is %s, want %s", i, e.URL, srvs[i].BaseURL())
				}
				if e.Requests == 0 {
					t.Errorf("endpoint %s was sent nothing: %+v", e.URL, stats.Endpoints)
				}
				if e.Requests != e.Answered+e.Failures {
					t.Errorf("endpoint %s: %d requests, %d answered, %d failed", e.URL, e.Requests, e.Answered, e.Failures)
				}
				sum += e.Requests
				fails += e.Failures
			}
			if sum != stats.Requests {
				t.Errorf("endpoints' requests add to %d, the call's are %d", sum, stats.Requests)
			}
			if tc.kill {
				if !killed.Load() || stats.Endpoints[1].Failures == 0 {
					t.Errorf("the killed replica failed nothing: %+v", stats.Endpoints)
				}
				return
			}
			if fails != 0 {
				t.Errorf("failures without a fault: %+v", stats.Endpoints)
			}
			// A video's frames went to one replica.
			where := map[string]int{}
			for i, s := range srvs {
				for _, r := range s.Requests() {
					if r.Images() == 0 {
						continue
					}
					v := videoOf.FindStringSubmatch(r.User())[1]
					if j, ok := where[v]; ok && j != i {
						t.Errorf("video %s's frames went to replicas %d and %d", v, j, i)
					}
					where[v] = i
				}
			}
		})
	}
}

// TestPoolPicks: the pool picks the endpoint in service with the fewest
// outstanding attempts (on a tie the one picked least, then the first), keeps a held key on the
// endpoint its first attempt went to while that one is in service, moves
// it when it is out, and with every endpoint out picks the one back
// soonest.
func TestPoolPicks(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	p := newPool([]string{"a", "b", "c"}, 4, time.Second)
	p.now = func() time.Time { return now }
	steps := []struct {
		do   func() int
		want int
	}{
		{func() int { return p.pick("") }, 0},
		{func() int { return p.pick("") }, 1},
		{func() int { return p.pick("") }, 2},
		{func() int { p.done(1); return p.pick("") }, 1}, // b has fewest again
		{func() int { p.hold("v"); p.done(2); return p.pick("v") }, 2},
		{func() int { return p.pick("v") }, 2},                 // held: stays on c though c has most
		{func() int { p.failed(2, 0); return p.pick("v") }, 0}, // c out: the key moves
		{func() int { return p.pick("v") }, 0},
		{func() int { p.failed(0, 0); p.failed(1, 3*time.Second); return p.pick("") }, 0}, // all out: a and c back in 1s, b in 3s; a is first
	}
	for i, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("step %d: picked %d, want %d", i, got, s.want)
		}
	}
	// a holds 4 outstanding, c 2: c is back and least loaded.
	now = now.Add(1500 * time.Millisecond)
	if got := p.pick(""); got != 2 {
		t.Fatalf("after the time out: picked %d, want 2", got)
	}
	p.answered(1)
	if got := p.pick(""); got != 1 {
		t.Fatalf("b answered, so back in service with the fewest: picked %d", got)
	}
	p.release("v")
	if len(p.bound) != 0 {
		t.Errorf("a released key is still bound: %v", p.bound)
	}
	// A failure in a row doubles the time out, up to maxOut.
	for range 40 {
		p.failed(0, 0)
	}
	if out := p.eps[0].downUntil.Sub(now); out != maxOut {
		t.Errorf("time out after 40 failures %v, want %v", out, maxOut)
	}
}

// TestReplicaFailoverWithoutRetries: with server_retries 0, a request
// whose replica refuses connections still goes to another replica, and a
// dead replica's requests are answered by the others.
func TestReplicaFailoverWithoutRetries(t *testing.T) {
	t.Parallel()
	live := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer live.Close()
	dead := openaitest.New(openaitest.Config{})
	dead.Close()
	c, err := New(Config{BaseURLs: []string{dead.BaseURL(), live.BaseURL()}, Model: "test-model", Chat: true, MaxRetries: -1, Backoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	res, stats := c.AskGroups(context.Background(), testGroups(t, 2))
	if stats.Failed != 0 {
		t.Fatalf("failed %d: %v", stats.Failed, res)
	}
	if e := c.EndpointStats(); e[0].Failures != 1 || e[0].Answered != 0 || e[1].Answered != 18 {
		t.Errorf("endpoint stats %+v: want the dead one tried once, then out for the hour", e)
	}
}

// TestNewRefusesBadReplicas: BaseURL beside BaseURLs, a replica listed
// twice and a remote replica are refused.
func TestNewRefusesBadReplicas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"both", Config{BaseURL: "http://127.0.0.1:1/v1", BaseURLs: []string{"http://127.0.0.1:2/v1"}}, "give one or the other"},
		{"twice", Config{BaseURLs: []string{"http://127.0.0.1:2/v1", "http://127.0.0.1:2/v1/"}}, "listed twice"},
		{"remote", Config{BaseURLs: []string{"http://127.0.0.1:2/v1", "http://10.1.1.1:2/v1"}}, "not a loopback address"},
	} {
		tc.cfg.Model = "m"
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestReplicaAnswering5xxIsTakenOut: a replica that answers every request
// 503 fails no query: each of its failures takes it out of service for
// longer, and its requests go to the other at once; it is tried again
// less and less often.
func TestReplicaAnswering5xxIsTakenOut(t *testing.T) {
	t.Parallel()
	live := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer live.Close()
	sick := openaitest.New(openaitest.Config{Answer: believes("blue"), Fault: func(*openaitest.Request, int) openaitest.Fault { return openaitest.Fault{Status: 503} }})
	defer sick.Close()
	c := replicaClient(t, []*openaitest.Server{sick, live}, Config{MaxConcurrent: 2, MaxRetries: 1})
	res, stats := c.AskGroups(context.Background(), testGroups(t, 8))
	if stats.Failed != 0 {
		t.Fatalf("%d queries failed: %v", stats.Failed, res)
	}
	e := stats.Endpoints
	if e[0].Failures == 0 || e[0].Answered != 0 || e[1].Answered != int64(stats.Queries) {
		t.Errorf("endpoints %+v: want the sick one failing, the live one answering all %d", e, stats.Queries)
	}
	// 1 ms out, doubling: over a run of tens of milliseconds the sick
	// replica is tried a handful of times, not for every request.
	if e[0].Failures > int64(stats.Queries)/2 {
		t.Errorf("the sick replica was tried %d times for %d queries", e[0].Failures, stats.Queries)
	}
}
