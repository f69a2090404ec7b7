package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models/letters"
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
			for _, q := range heldOrder(groups) {
				if !strings.Contains(reqs[i].User(), q.Prompt.Question) || reqs[i].Images() != len(q.Frames) {
					t.Fatalf("request %d is not %s", i, q.ID)
				}
				i++
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
	groups := distinctFrames(t, testGroups(t, 4))
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
	// next runs on the feeder and done on AskStream's goroutine: delivered
	// is read by one while the other writes it.
	var delivered atomic.Int64
	read, peak := 0, 0
	next := func() (Group, bool, error) {
		if read == len(groups) {
			return Group{}, false, nil
		}
		read++
		peak = max(peak, read-int(delivered.Load()))
		return groups[read-1], true, nil
	}
	stats, err := c.AskStream(context.Background(), next, func(g Group, res []QueryResult) error {
		if d := delivered.Load(); g.Name != groups[d].Name || len(res) != len(g.Queries) {
			t.Errorf("delivered %s as group %d", g.Name, d)
		}
		for _, r := range res {
			if r.Err != nil || r.Answer.Choice != 1 {
				t.Errorf("%s: %+v", g.Name, r)
			}
		}
		delivered.Add(1)
		return nil
	})
	if err != nil || delivered.Load() != 12 || stats.Queries != 12*9 || stats.Failed != 0 {
		t.Fatalf("err %v, %d delivered, stats %+v", err, delivered.Load(), stats)
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

// heldOrder is the order one worker sends groups' queries in: in order,
// except that a query whose first frame an earlier query of its group
// showed goes right after that one is answered (leaders); the first
// group's first query is asked alone to find out the server's forms, so
// that group's queries go in plain order.
func heldOrder(groups []Group) []Query {
	var out []Query
	for gi, g := range groups {
		if gi == 0 {
			out = append(out, g.Queries...)
			continue
		}
		lead, followers := leaders(g.Queries)
		for q := range g.Queries {
			if lead[q] != q {
				continue
			}
			out = append(out, g.Queries[q])
			for _, f := range followers[q] {
				out = append(out, g.Queries[f])
			}
		}
	}
	return out
}

// distinctFrames gives each frames query of groups a first frame of its
// own, so that none waits for another (leaders).
func distinctFrames(t testing.TB, groups []Group) []Group {
	frames := testFrames(t, 64)
	n := 0
	for _, g := range groups {
		for q := range g.Queries {
			if len(g.Queries[q].Frames) > 0 {
				g.Queries[q].Frames = append([]*Image{frames[n%len(frames)]}, g.Queries[q].Frames[1:]...)
				n++
			}
		}
	}
	return groups
}

func TestLeaders(t *testing.T) {
	t.Parallel()
	f := testFrames(t, 3)
	tests := []struct {
		name      string
		frames    [][]*Image // per query; nil: a text query
		lead      []int
		followers map[int][]int
	}{
		{"text only", [][]*Image{nil, nil, nil}, []int{0, 1, 2}, nil},
		{"one video's items", [][]*Image{{f[0], f[1]}, nil, {f[0], f[1]}, {f[0], f[1]}}, []int{0, 1, 0, 0}, map[int][]int{0: {2, 3}}},
		{"same first frame, other frames", [][]*Image{{f[0], f[1]}, {f[0], f[2]}}, []int{0, 0}, map[int][]int{0: {1}}},
		{"two frame sets", [][]*Image{{f[1]}, {f[0], f[1]}, {f[1]}, {f[0]}}, []int{0, 1, 0, 1}, map[int][]int{0: {2}, 1: {3}}},
		{"a later frame shared only", [][]*Image{{f[0], f[1]}, {f[1], f[0]}}, []int{0, 1}, nil},
	}
	// Text queries: those that start with a video's captions, description
	// or transcript wait for the first of them; the others never wait.
	text := []struct {
		name      string
		parts     []letters.Parts
		lead      []int
		followers map[int][]int
	}{
		{"blind", []letters.Parts{{Kind: letters.KindBlind, Question: "q"}, {Kind: letters.KindBlind, Question: "q"}}, []int{0, 1}, nil},
		{"captions", []letters.Parts{{Kind: letters.KindFrameCaptions, Captions: []string{"a", "b"}, Question: "q1"},
			{Kind: letters.KindFrameCaptions, Captions: []string{"a", "b"}, Question: "q2"},
			{Kind: letters.KindFrameCaptions, Captions: []string{"a", "c"}, Question: "q1"}}, []int{0, 0, 2}, map[int][]int{0: {1}}},
		{"transcript and description", []letters.Parts{{Kind: letters.KindTranscript, Context: "t", Question: "q1"},
			{Kind: letters.KindVideoCaption, Context: "t", Question: "q1"}, {Kind: letters.KindTranscript, Context: "t", Question: "q2"}}, []int{0, 1, 0}, map[int][]int{0: {2}}},
		{"examples", []letters.Parts{{Kind: letters.KindExamples, Context: "e", Question: "q1"}, {Kind: letters.KindExamples, Context: "e", Question: "q2"}}, []int{0, 1}, nil},
	}
	for _, tt := range text {
		t.Run(tt.name, func(t *testing.T) {
			qs := make([]Query, len(tt.parts))
			for i, p := range tt.parts {
				qs[i] = Query{Prompt: p}
			}
			lead, followers := leaders(qs)
			if !slices.Equal(lead, tt.lead) || !maps.EqualFunc(followers, tt.followers, slices.Equal) {
				t.Errorf("leaders: %v %v, want %v %v", lead, followers, tt.lead, tt.followers)
			}
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs := make([]Query, len(tt.frames))
			for i, fr := range tt.frames {
				qs[i] = Query{Frames: fr}
			}
			lead, followers := leaders(qs)
			if !slices.Equal(lead, tt.lead) || !maps.EqualFunc(followers, tt.followers, slices.Equal) {
				t.Errorf("leaders: %v %v, want %v %v", lead, followers, tt.lead, tt.followers)
			}
		})
	}
}

// A query that shares its first frame with an earlier query of its group
// goes out only once that one is answered, at any concurrency, so that a
// prefix cache has the frames computed when it arrives; the answers are
// those of every query sent at once.
func TestAskStreamHoldsFollowersUntilTheirLeaderIsAnswered(t *testing.T) {
	t.Parallel()
	groups := testGroups(t, 6)
	// A second frame set in every group, with a first frame of its own:
	// two leaders a group, whose followers the workers count down at once.
	other := testFrames(t, 8)[4:]
	for g := range groups {
		for _, q := range groups[g].Queries {
			if len(q.Frames) > 0 {
				q.ID += "/b"
				q.Frames = other
				q.Prompt.Question += " (the other set)"
				groups[g].Queries = append(groups[g].Queries, q)
			}
		}
	}
	id := map[string]string{} // a request's user text and image count -> query ID
	leaderOf := map[string]string{}
	for _, g := range groups {
		lead, _ := leaders(g.Queries)
		for q, qu := range g.Queries {
			order, _ := qu.check()
			text, _ := qu.text(order)
			id[fmt.Sprint(len(qu.Frames), text)] = qu.ID
			if lead[q] != q {
				leaderOf[qu.ID] = g.Queries[lead[q]].ID
			}
		}
	}
	for _, conc := range []int{1, 3, 16} {
		var mu sync.Mutex
		answered := map[string]bool{}
		var early []string
		believe := believes("blue")
		srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
			q := id[fmt.Sprint(r.Images(), r.User())]
			mu.Lock()
			if l, ok := leaderOf[q]; ok && !answered[l] {
				early = append(early, q+" before "+l)
			}
			mu.Unlock()
			time.Sleep(time.Millisecond) // let the others of its group arrive, were they sent
			mu.Lock()
			answered[q] = true
			mu.Unlock()
			return believe(r)
		}})
		c := newTestClient(t, srv, Config{MaxConcurrent: conc})
		res, stats := c.AskGroups(context.Background(), groups)
		srv.Close()
		if len(early) > 0 || len(answered) != 6*12 {
			t.Errorf("concurrency %d: %d queries answered; sent before their leader was answered: %v", conc, len(answered), early)
		}
		if stats.Queries != 72 || stats.Requests != 72 || stats.Failed != 0 {
			t.Errorf("concurrency %d: stats %+v", conc, stats)
		}
		for g := range res {
			for q, r := range res[g] {
				if r.Err != nil || r.Answer.Choice != 1 {
					t.Errorf("%s: %+v", groups[g].Queries[q].ID, r)
				}
			}
		}
	}
}

// At most prefixesInFlight leaders are in flight at once (a prefix is open
// until its last follower is answered), so that the
// leaders sent meanwhile do not evict a held prefix from the server's
// cache before its followers come.
func TestAskStreamBoundsLeadersInFlight(t *testing.T) {
	t.Parallel()
	frames := testFrames(t, 40)
	var groups []Group
	isLeader := map[string]bool{} // a request's first-frame-bearing user text -> leader
	for v := range 20 {
		g := Group{Name: fmt.Sprint(v)}
		for it := range 4 {
			q := Query{ID: fmt.Sprintf("v%d/i%d", v, it), Frames: []*Image{frames[2*v], frames[2*v+1]},
				Prompt: letters.Parts{Kind: letters.KindVisual, Question: fmt.Sprintf("What is thing %d of video %d?", it, v), Options: []string{"red", "blue", "green"}}}
			g.Queries = append(g.Queries, q)
			order, _ := q.check()
			text, _ := q.text(order)
			isLeader[text] = it == 0
		}
		groups = append(groups, g)
	}
	const conc = 12 // prefixesInFlight(12) = 3
	var mu sync.Mutex
	leaders, peak := 0, 0
	believe := believes("blue")
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		l := isLeader[r.User()]
		mu.Lock()
		if l {
			leaders++
			peak = max(peak, leaders)
		}
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		if l {
			leaders--
		}
		mu.Unlock()
		return believe(r)
	}})
	defer srv.Close()
	c := newTestClient(t, srv, Config{MaxConcurrent: conc})
	res, stats := c.AskGroups(context.Background(), groups)
	if stats.Failed != 0 || stats.Requests != 80 {
		t.Fatalf("stats %+v", stats)
	}
	if want := prefixesInFlight(conc); peak > want || peak < 2 {
		t.Errorf("%d leaders in flight at most, want 2 to %d", peak, want)
	}
	for g := range res {
		for q, r := range res[g] {
			if r.Err != nil || r.Answer.Choice != 1 {
				t.Errorf("%s: %+v", groups[g].Queries[q].ID, r)
			}
		}
	}
}

// The affinity keys: a video's frame queries share their first frame's key,
// its captions queries their captions' key whatever the question, and text
// queries without a context are keyed by question and options as a set.
func TestQueryKeys(t *testing.T) {
	t.Parallel()
	f := testFrames(t, 2)
	caps := []string{"a man walks", "he sits"}
	qs := []Query{
		{Frames: []*Image{f[0], f[1]}, Prompt: letters.Parts{Kind: letters.KindVisual, Question: "q1", Options: []string{"a", "b"}}},
		{Frames: []*Image{f[0]}, Prompt: letters.Parts{Kind: letters.KindVisual, Question: "q2", Options: []string{"c", "d"}}},
		{Prompt: letters.Parts{Kind: letters.KindFrameCaptions, Captions: caps, Question: "q1", Options: []string{"a", "b"}}},
		{Prompt: letters.Parts{Kind: letters.KindFrameCaptions, Captions: caps, Question: "q2", Options: []string{"c", "d"}}},
		{Prompt: letters.Parts{Kind: letters.KindBlind, Question: "q1", Options: []string{"a", "b"}}},
		{Prompt: letters.Parts{Kind: letters.KindBlind, Question: "q1", Options: []string{"b", "a"}}},
		{Prompt: letters.Parts{Kind: letters.KindBlind, Question: "q2", Options: []string{"a", "b"}}},
	}
	k := queryKeys(qs)
	same := [][2]int{{0, 1}, {2, 3}, {4, 5}}
	differ := [][2]int{{0, 2}, {2, 4}, {4, 6}, {3, 6}}
	for _, p := range same {
		if k[p[0]] != k[p[1]] {
			t.Errorf("queries %d and %d: keys %s and %s, want the same", p[0], p[1], k[p[0]], k[p[1]])
		}
	}
	for _, p := range differ {
		if k[p[0]] == k[p[1]] {
			t.Errorf("queries %d and %d: both keyed %s", p[0], p[1], k[p[0]])
		}
	}
}
