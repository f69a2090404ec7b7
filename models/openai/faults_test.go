package openai

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// faultQueries are n text queries whose answer is "blue" (letter B).
func faultQueries(n int) []Query {
	qs := make([]Query, n)
	for i := range qs {
		qs[i] = Query{ID: fmt.Sprintf("item-%d", i), Prompt: letters.Parts{Kind: letters.KindBlind, Question: fmt.Sprintf("What colour is sky %d?", i), Options: []string{"red", "blue", "green"}}}
	}
	return qs
}

// A refusal other than 429 (401 after a key change, 404 after a rename)
// and a 200 of the wrong shape are never stored: the resumed run, against
// a server that now answers, asks those queries again and answers every
// one, and asks nothing else.
func TestFaultyRepliesAreNeverStored(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		fault openaitest.Fault
	}{
		{"401", openaitest.Fault{Status: 401}},
		{"404", openaitest.Fault{Status: 404}},
		{"no choices", openaitest.Fault{Body: `{"choices":[]}`}},
		{"no message", openaitest.Fault{Body: `{"choices":[{"index":0}]}`}},
		{"no logprobs after the probe", openaitest.Fault{NoLogprobs: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var broken atomic.Bool
			broken.Store(true)
			qs := faultQueries(6)
			srv := openaitest.New(openaitest.Config{Answer: believes("blue"), Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
				// The first query is the probe and gets through; the
				// odd-numbered ones meet the fault.
				if broken.Load() && (strings.Contains(r.User(), "sky 1?") || strings.Contains(r.User(), "sky 3?")) {
					return tt.fault
				}
				return openaitest.Fault{}
			}})
			defer srv.Close()
			path := filepath.Join(t.TempDir(), "replies.store")
			run := func() ([]Answer, []error, int) {
				t.Helper()
				st, err := OpenStore(path)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				c := newTestClient(t, srv, Config{Store: st})
				srv.Reset()
				as, errs := make([]Answer, len(qs)), make([]error, len(qs))
				for i, q := range qs {
					as[i], errs[i] = c.Ask(context.Background(), q)
				}
				return as, errs, st.Len()
			}
			_, errs, stored := run()
			for i, err := range errs {
				if failing := i == 1 || i == 3; failing != (err != nil) {
					t.Errorf("first run, query %d: error %v", i, err)
				}
				if err != nil && !errors.Is(err, ErrServer) {
					t.Errorf("first run, query %d: %v is not a server failure", i, err)
				}
			}
			if stored != 4 {
				t.Errorf("first run stored %d replies, want the 4 answered", stored)
			}
			broken.Store(false)
			as, errs, stored := run()
			for i, err := range errs {
				if err != nil || as[i].Choice != 1 || as[i].Mode != ModeLogprobs {
					t.Errorf("resumed run, query %d: %+v, %v; want blue from logprobs", i, as[i], err)
				}
			}
			if n := srv.Count("/v1/chat/completions"); n != 2 {
				t.Errorf("resumed run sent %d requests, want the 2 that failed", n)
			}
			if stored != 6 {
				t.Errorf("resumed run holds %d replies, want 6", stored)
			}
		})
	}
}

// A store an earlier version wrote, holding a 404 and a {"choices":[]}
// for two requests, has them asked again and replaced; the store opened
// again reads the good replies.
func TestStaleRecordsAreAskedAgainAndReplaced(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "replies.store")
	qs := faultQueries(3)
	st, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, srv, Config{Store: st})
	if _, err := c.Ask(context.Background(), qs[0]); err != nil { // the probe: forms known
		t.Fatal(err)
	}
	for i, bad := range []StoredReply{{Status: 404, Body: []byte(`{"error":{"message":"The model does not exist."}}`)}, {Status: 200, Body: []byte(`{"choices":[]}`)}} {
		q := qs[i+1]
		order, _ := q.check()
		msgs, err := q.messages(order, true)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := c.chatBody(msgs, true, true)
		if err := st.Put(requestKey("/chat/completions", body), bad); err != nil {
			t.Fatal(err)
		}
	}
	srv.Reset()
	for _, q := range qs[1:] {
		if a, err := c.Ask(context.Background(), q); err != nil || a.Choice != 1 {
			t.Errorf("%s: %+v, %v", q.ID, a, err)
		}
	}
	if n := srv.Count("/v1/chat/completions"); n != 2 {
		t.Errorf("%d requests, want the 2 stale ones asked again", n)
	}
	st.Close()
	st, err = OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c = newTestClient(t, srv, Config{Store: st})
	srv.Reset()
	for _, q := range qs {
		if a, err := c.Ask(context.Background(), q); err != nil || a.Choice != 1 {
			t.Errorf("reopened, %s: %+v, %v", q.ID, a, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("reopened store: %d requests, want none", n)
	}
}

// The mode is decided by the probe: against a server that drops the
// log-probabilities of some replies, those queries fail (malformed, a
// server failure) and every other stays in logprobs mode, its margins
// real; two runs give the same answers and failures.
func TestTheModeIsDecidedOnce(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Top: map[string]float64{"B": 0.7, "A": 0.2, "C": 0.1}, Text: "B"}
	}, Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
		return openaitest.Fault{NoLogprobs: strings.Contains(r.User(), "sky 2?") || strings.Contains(r.User(), "sky 5?")}
	}})
	defer srv.Close()
	run := func() ([]Answer, []bool) {
		c := newTestClient(t, srv, Config{})
		qs := faultQueries(8)
		as, failed := make([]Answer, len(qs)), make([]bool, len(qs))
		for i, q := range qs {
			var err error
			as[i], err = c.Ask(context.Background(), q)
			failed[i] = err != nil
			if err != nil && !errors.Is(err, ErrMalformed) {
				t.Errorf("query %d: %v, want a malformed reply", i, err)
			}
		}
		return as, failed
	}
	a1, f1 := run()
	a2, f2 := run()
	for i := range a1 {
		if want := i == 2 || i == 5; f1[i] != want {
			t.Errorf("query %d failed %v, want %v", i, f1[i], want)
		}
		if !f1[i] && (a1[i].Mode != ModeLogprobs || a1[i].Choice != 1 || a1[i].LogProbs[0] == LogFloor) {
			t.Errorf("query %d: %+v, want logprobs with real margins", i, a1[i])
		}
	}
	if !reflect.DeepEqual(a1, a2) || !reflect.DeepEqual(f1, f2) {
		t.Errorf("two runs differ:\n%v %v\n%v %v", a1, f1, a2, f2)
	}
}

// A server that accepts connections and never answers is found by the
// probe, the first query, within its short timeout and retries; every
// later query fails at once, sending nothing, with a message naming the
// server.
func TestAHungServerFailsTheProbeAndTheRestAtOnce(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Delay: time.Hour})
	defer srv.Close()
	c := newTestClient(t, srv, Config{Timeout: 50 * time.Millisecond})
	qs := faultQueries(5)
	for i, q := range qs {
		_, err := c.Ask(context.Background(), q)
		if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), srv.BaseURL()) {
			t.Errorf("query %d: %v, want a server failure naming %s", i, err, srv.BaseURL())
		}
		if i > 0 && !strings.Contains(err.Error(), "gave no reply to the probe") {
			t.Errorf("query %d: %v, want the probe's failure", i, err)
		}
	}
	if n := srv.Count("/v1/chat/completions"); n != probeRetries+1 {
		t.Errorf("%d requests, want the probe's %d attempts alone", n, probeRetries+1)
	}
}

// A server that answered the probe keeps its usual timeout and retries:
// the probe's are its own.
func TestTheProbeTimeoutIsTheProbesAlone(t *testing.T) {
	t.Parallel()
	var slow atomic.Bool
	srv := openaitest.New(openaitest.Config{Answer: believes("blue"), Fault: func(r *openaitest.Request, attempt int) openaitest.Fault {
		if slow.Load() && attempt <= 3 {
			return openaitest.Fault{Status: 503}
		}
		return openaitest.Fault{}
	}})
	defer srv.Close()
	c := newTestClient(t, srv, Config{MaxRetries: 4})
	qs := faultQueries(2)
	if _, err := c.Ask(context.Background(), qs[0]); err != nil {
		t.Fatal(err)
	}
	slow.Store(true)
	srv.Reset()
	if a, err := c.Ask(context.Background(), qs[1]); err != nil || a.Choice != 1 {
		t.Fatalf("%+v, %v: 3 faults are within the client's 4 retries", a, err)
	}
	if n := srv.Count("/v1/chat/completions"); n != 4 {
		t.Errorf("%d attempts, want 4", n)
	}
}

// A generated reply naming two letters ("B or C", "C, D") abstains: no
// choice, no option found, instead of the first letter at full margin.
func TestAReplyNamingSeveralLettersAbstains(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		reply string
		want  int
	}{
		{"B or C", -1},
		{"C, D", -1},
		{"(B) or (C)", -1},
		{"B and D", -1},
		{"B/C", -1},
		{"The answer is B or C.", -1},
		{"B", 1},
		{"C. a cat", 2},
		{"B. the blue one", 1}, // one letter, then its text
		{"A man and a dog", 0}, // one letter: the default parser reads its leading A
		{"D", 3},
	} {
		t.Run(tt.reply, func(t *testing.T) {
			t.Parallel()
			srv := openaitest.New(openaitest.Config{Logprobs: openaitest.LogprobsRefused, Answer: func(*openaitest.Request) openaitest.Reply {
				return openaitest.Reply{Top: map[string]float64{"A": 1}, Text: tt.reply}
			}})
			defer srv.Close()
			c := newTestClient(t, srv, Config{})
			q := Query{ID: "item", Prompt: letters.Parts{Kind: letters.KindBlind, Question: "Which?", Options: []string{"a dog", "blue", "a cat", "red"}}}
			a, err := c.Ask(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if a.Mode != ModeGenerate || a.Choice != tt.want {
				t.Errorf("%q: mode %s choice %d, want generate %d", tt.reply, a.Mode, a.Choice, tt.want)
			}
			if tt.want < 0 && (a.Found[0] || a.Found[1] || a.Found[2] || a.Found[3]) {
				t.Errorf("%q: an abstention found %v", tt.reply, a.Found)
			}
		})
	}
}
