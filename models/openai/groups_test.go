package openai

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

func TestAskGroupsIsTheSameAtAnyConcurrency(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer srv.Close()
	groups := testGroups(t, 4)
	var first []byte
	for _, conc := range []int{1, 8, 64} {
		srv.Reset()
		c := newTestClient(t, srv, Config{MaxConcurrent: conc})
		res, stats := c.AskGroups(context.Background(), groups)
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Errorf("concurrency %d: results differ from concurrency 1", conc)
		}
		// 4 videos x 3 items x (1 frames + 2 blind) queries; the frames
		// reader's 3 items share one frame sequence per video.
		if stats.Queries != 36 || stats.Requests != 36 || stats.Failed != 0 || stats.Images != 4*3*3 || stats.WithImages != 12 || stats.SharedPrefix != 8 {
			t.Errorf("concurrency %d: stats %+v", conc, stats)
		}
		if got := stats.PrefixShare(); got != 8.0/36 {
			t.Errorf("prefix share %v", got)
		}
		for g := range res {
			for q, r := range res[g] {
				if r.Err != nil || r.Answer.Choice != 1 {
					t.Errorf("%s: %+v", groups[g].Queries[q].ID, r)
				}
			}
		}
		if conc == 1 { // one in flight: the server sees the queries exactly in order
			reqs := srv.Requests()
			i := 0
			for _, g := range groups {
				for _, q := range g.Queries {
					if !strings.Contains(reqs[i].User(), q.Prompt.Question) || reqs[i].Images() != len(q.Frames) {
						t.Fatalf("request %d is not %s", i, q.ID)
					}
					i++
				}
			}
		}
	}
}

// Queries go out in order, group after group: with a server that holds
// every request until the test releases one, the first query comes alone
// (finding out the server's forms), then exactly the next MaxConcurrent,
// and then each released slot brings exactly the next query in order.
func TestAskGroupsSendsInOrder(t *testing.T) {
	t.Parallel()
	const conc = 4
	groups := testGroups(t, 4)
	index := map[string]int{}
	var order []string
	for _, g := range groups {
		for _, q := range g.Queries {
			index[q.ID] = len(order)
			order = append(order, q.ID)
		}
	}
	arrived := make(chan int)
	release := make(chan struct{})
	believe := believes("blue")
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		id := -1
		for _, g := range groups {
			for _, q := range g.Queries {
				order, _ := q.check()
				if text, _ := q.text(order); text == r.User() && len(q.Frames) == r.Images() {
					id = index[q.ID]
				}
			}
		}
		arrived <- id
		<-release
		return believe(r)
	}})
	defer srv.Close()
	c := newTestClient(t, srv, Config{MaxConcurrent: conc})
	done := make(chan struct{})
	go func() {
		c.AskGroups(context.Background(), groups)
		close(done)
	}()
	if got := <-arrived; got != 0 {
		t.Fatalf("first request is query %d, want 0 alone", got)
	}
	release <- struct{}{}
	first := map[int]bool{}
	for range conc {
		first[<-arrived] = true
	}
	for i := 1; i <= conc; i++ {
		if !first[i] {
			t.Fatalf("the first %d in flight are %v, want queries 1 to %d", conc, first, conc)
		}
	}
	for want := conc + 1; want < len(order); want++ {
		release <- struct{}{}
		if got := <-arrived; got != want {
			t.Fatalf("after a release the server got query %d (%s), want %d (%s)", got, order[max(got, 0)], want, order[want])
		}
	}
	for range conc {
		release <- struct{}{}
	}
	<-done
}

// A failing query fails alone; the others of its group are answered.
func TestAskGroupsFailsQueriesAlone(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue"), Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
		if strings.Contains(r.User(), "thing 1 of video 0") && r.Images() > 0 {
			return openaitest.Fault{Status: 500}
		}
		return openaitest.Fault{}
	}})
	defer srv.Close()
	c := newTestClient(t, srv, Config{MaxRetries: 1})
	res, stats := c.AskGroups(context.Background(), testGroups(t, 1))
	if stats.Failed != 1 || stats.Retries != 1 || stats.Requests != 10 {
		t.Errorf("stats %+v", stats)
	}
	for q, r := range res[0] {
		if (r.Err != nil) != (q == 3) {
			t.Errorf("query %d: err %v", q, r.Err)
		}
	}
}

// AskStream reads groups only as workers free up, keeps at most
// 2*MaxConcurrent+1 open, and hands them back in order.
func TestAskStreamBoundsOpenGroupsAndKeepsOrder(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue"), Delay: 1e6})
	defer srv.Close()
	groups := testGroups(t, 12)
	c := newTestClient(t, srv, Config{MaxConcurrent: 2})
	read, delivered, peak := 0, 0, 0
	next := func() (Group, bool, error) {
		if read == len(groups) {
			return Group{}, false, nil
		}
		read++
		peak = max(peak, read-delivered)
		return groups[read-1], true, nil
	}
	stats, err := c.AskStream(context.Background(), next, func(g Group, res []QueryResult) error {
		if g.Name != groups[delivered].Name || len(res) != len(g.Queries) {
			t.Errorf("delivered %s as group %d", g.Name, delivered)
		}
		for _, r := range res {
			if r.Err != nil || r.Answer.Choice != 1 {
				t.Errorf("%s: %+v", g.Name, r)
			}
		}
		delivered++
		return nil
	})
	if err != nil || delivered != 12 || stats.Queries != 12*9 || stats.Failed != 0 {
		t.Fatalf("err %v, %d delivered, stats %+v", err, delivered, stats)
	}
	if peak > 5 {
		t.Errorf("%d groups open at once, limit 5", peak)
	}
}

func TestAskStreamStopsOnAnError(t *testing.T) {
	t.Parallel()
	stop := errors.New("disk full")
	tests := []struct {
		name      string
		failNext  int // the group next fails on, -1 never
		failDone  int // the group done fails on, -1 never
		wantDone  int
		wantError error
	}{
		{name: "next fails", failNext: 3, failDone: -1, wantDone: 3, wantError: stop},
		{name: "done fails", failNext: -1, failDone: 1, wantDone: 2, wantError: stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(openaitest.Config{Answer: believes("blue")})
			defer srv.Close()
			groups := testGroups(t, 8)
			c := newTestClient(t, srv, Config{MaxConcurrent: 1})
			read, done := 0, 0
			next := func() (Group, bool, error) {
				if read == tt.failNext {
					return Group{}, false, stop
				}
				if read == len(groups) {
					return Group{}, false, nil
				}
				read++
				return groups[read-1], true, nil
			}
			_, err := c.AskStream(context.Background(), next, func(Group, []QueryResult) error {
				done++
				if done-1 == tt.failDone {
					return stop
				}
				return nil
			})
			if !errors.Is(err, tt.wantError) || done > tt.wantDone {
				t.Errorf("err %v after %d groups done, want %v after at most %d", err, done, tt.wantError, tt.wantDone)
			}
			if read == len(groups) {
				t.Errorf("every group was read despite the error")
			}
		})
	}
}

func TestAskGroupsAfterCancel(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer srv.Close()
	c := newTestClient(t, srv, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ := c.AskGroups(ctx, testGroups(t, 3))
	for g := range res {
		for q, r := range res[g] {
			if !errors.Is(r.Err, context.Canceled) {
				t.Errorf("group %d query %d: %v", g, q, r.Err)
			}
		}
	}
	if len(res) != 3 || len(srv.Requests()) != 0 {
		t.Errorf("%d groups, %d requests", len(res), len(srv.Requests()))
	}
}

// Through a store, at any concurrency and against servers that make the
// client fall back, the answers are the same bytes, and a resume at another
// concurrency asks nothing.
func TestStoredAnswersAreTheSameAtAnyConcurrency(t *testing.T) {
	t.Parallel()
	servers := []struct {
		name string
		cfg  openaitest.Config
	}{
		{"vLLM", openaitest.Config{}},
		{"no continue_final_message", openaitest.Config{RefusePrefill: true}},
		{"no logprobs", openaitest.Config{Logprobs: openaitest.LogprobsIgnored}},
	}
	groups := testGroups(t, 3)
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			sv.cfg.Answer = believes("blue")
			srv := openaitest.New(sv.cfg)
			defer srv.Close()
			var first []byte
			for _, conc := range []int{1, 8, 64} {
				path := filepath.Join(t.TempDir(), "r.jsonl")
				var runs [][]byte
				for run, rc := range []int{conc, 65 - conc} { // a run, then a resume at another concurrency
					st, err := OpenStore(path)
					if err != nil {
						t.Fatal(err)
					}
					srv.Reset()
					c := newTestClient(t, srv, Config{Store: st, MaxConcurrent: rc, ParseReply: leadingLetter})
					res, stats := c.AskGroups(context.Background(), groups)
					st.Close()
					b, _ := json.Marshal(res)
					runs = append(runs, b)
					if stats.Failed != 0 || run == 1 && len(srv.Requests()) != 0 {
						t.Errorf("concurrency %d run %d: %d failed, %d requests", rc, run, stats.Failed, len(srv.Requests()))
					}
				}
				if string(runs[0]) != string(runs[1]) {
					t.Errorf("concurrency %d: the resumed answers differ", conc)
				}
				if first == nil {
					first = runs[0]
				} else if string(runs[0]) != string(first) {
					t.Errorf("concurrency %d: answers differ from concurrency 1", conc)
				}
			}
		})
	}
}
