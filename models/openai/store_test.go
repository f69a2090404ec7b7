package openai

import (
	"context"
	"fmt"
	"github.com/vidscreen/vidscreen/models/letters"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

func storeReplies(n int) []StoredReply {
	var out []StoredReply
	for i := range n {
		out = append(out, StoredReply{Status: 200, Body: fmt.Appendf(nil, `{"choices":[{"n":%d,"s":"quote \" and newline \n"}]}`, i)})
	}
	return out
}

func keyOf(i int) string { return requestKey("/chat/completions", fmt.Appendf(nil, "body %d", i)) }

func TestStoreKeepsWholeRecordsAfterAKillAtAnyByte(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "responses.jsonl")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	replies := storeReplies(3)
	var sizes []int64
	for i, r := range replies {
		if err := s.Put(keyOf(i), r); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		sizes = append(sizes, st.Size())
	}
	s.Close()
	whole, _ := os.ReadFile(path)
	// Every cut inside the last record: the first two survive, the third
	// is dropped, and the store appends cleanly after them.
	for cut := sizes[1]; cut < sizes[2]; cut++ {
		p := filepath.Join(dir, fmt.Sprintf("cut%d.jsonl", cut))
		if err := os.WriteFile(p, whole[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStore(p)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if s.Len() != 2 {
			t.Errorf("cut at %d: %d records, want 2", cut, s.Len())
		}
		for i := range 2 {
			got, ok, err := s.Get(keyOf(i))
			if err != nil || !ok || !reflect.DeepEqual(got, replies[i]) {
				t.Errorf("cut at %d: record %d = %+v, %v, %v", cut, i, got, ok, err)
			}
		}
		if _, ok, _ := s.Get(keyOf(2)); ok {
			t.Errorf("cut at %d: the torn record was kept", cut)
		}
		if err := s.Put(keyOf(2), replies[2]); err != nil {
			t.Fatal(err)
		}
		s.Close()
		again, _ := os.ReadFile(p)
		if string(again) != string(whole) {
			t.Errorf("cut at %d: after the torn record was written again the file differs from the whole one", cut)
		}
	}
}

func TestStoreReportsCorruptionWhereItIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mangle  func(lines []string) []string
		wantErr string
	}{
		{"a flipped byte in a middle record", func(l []string) []string { l[1] = strings.Replace(l[1], "quote", "quotE", 1); return l }, "record at byte"},
		{"a middle line without a checksum", func(l []string) []string { l[1] = l[1][9:]; return l }, "no checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			s, _ := OpenStore(path)
			for i, r := range storeReplies(3) {
				s.Put(keyOf(i), r)
			}
			s.Close()
			b, _ := os.ReadFile(path)
			lines := strings.SplitAfter(string(b), "\n")
			os.WriteFile(path, []byte(strings.Join(tt.mangle(lines), "")), 0o644)
			_, err := OpenStore(path)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), path) {
				t.Errorf("err %v, want corruption naming %s and %q", err, path, tt.wantErr)
			}
		})
	}
}

// groupsOn builds videos x (3 items x 2 conditions) queries that the
// believes("blue") server answers, with a frames reader and a blind reader
// under two orders.
func testGroups(t testing.TB, videos int) []Group {
	frames := testFrames(t, 4)
	var gs []Group
	for v := range videos {
		g := Group{Name: fmt.Sprintf("video%d", v)}
		for it := range 3 {
			opts := []string{"red", "blue", "green", fmt.Sprintf("item %d-%d", v, it)}
			q := fmt.Sprintf("What colour is thing %d of video %d?", it, v)
			g.Queries = append(g.Queries,
				Query{ID: fmt.Sprintf("v%d/i%d/frames", v, it), Frames: frames[v%2 : v%2+3], Prompt: letters.Parts{Kind: letters.KindVisual, Question: q, Options: opts}},
				Query{ID: fmt.Sprintf("v%d/i%d/blind0", v, it), Prompt: letters.Parts{Kind: letters.KindBlind, Question: q, Options: opts}, Order: []int{3, 2, 1, 0}},
				Query{ID: fmt.Sprintf("v%d/i%d/blind1", v, it), Prompt: letters.Parts{Kind: letters.KindBlind, Question: q, Options: opts}, Order: []int{1, 3, 0, 2}},
			)
		}
		gs = append(gs, g)
	}
	return gs
}

// A run killed after any number of stored replies, with its last record
// torn at any byte, resumes asking the server only what the store lacks,
// and answers exactly as an uninterrupted run.
func TestResumeAsksNothingTwice(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer srv.Close()
	groups := testGroups(t, 2)
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	st, err := OpenStore(full)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, srv, Config{Store: st, MaxConcurrent: 4})
	want, stats := c.AskGroups(context.Background(), groups)
	st.Close()
	if stats.Failed != 0 || stats.Requests != int64(stats.Queries) || stats.StoreHits != 0 {
		t.Fatalf("first run: %+v", stats)
	}
	sent := map[string]int{}
	for _, r := range srv.Requests() {
		sent[string(r.Body)]++
	}
	for b, n := range sent {
		if n != 1 {
			t.Errorf("a body was sent %d times: %.80s", n, b)
		}
	}
	data, _ := os.ReadFile(full)
	var ends []int
	for i, ch := range data {
		if ch == '\n' {
			ends = append(ends, i+1)
		}
	}
	// Cut inside the 8th record at its first and last bytes and every
	// 101st between (the store's own test cuts at every byte), and at a few
	// record ends.
	var cuts []int
	for c := ends[6]; c < ends[7]; c += 101 {
		cuts = append(cuts, c)
	}
	cuts = append(cuts, ends[6]+1, ends[7]-1)
	cuts = append(cuts, 0, ends[0], ends[len(ends)-1])
	for _, cut := range cuts {
		p := filepath.Join(dir, "resume.jsonl")
		os.WriteFile(p, data[:cut], 0o644)
		st, err := OpenStore(p)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		kept := st.Len()
		srv.Reset()
		c := newTestClient(t, srv, Config{Store: st, MaxConcurrent: 8})
		got, stats := c.AskGroups(context.Background(), groups)
		st.Close()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut %d: resumed answers differ", cut)
		}
		if n := len(srv.Requests()); n != stats.Queries-kept || stats.StoreHits != int64(kept) {
			t.Errorf("cut %d: %d requests and %d store hits, want %d and %d", cut, n, stats.StoreHits, stats.Queries-kept, kept)
		}
		for _, r := range srv.Requests() {
			if sent[string(r.Body)] != 1 {
				t.Errorf("cut %d: resumed run sent a body the first run did not", cut)
			}
		}
	}
}

// A refusal is stored too: a resumed run against a server that refuses
// continue_final_message offers it nothing at all.
func TestStoreRemembersRefusals(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue"), RefusePrefill: true})
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	q := Query{ID: "q", Prompt: letters.Parts{Kind: letters.KindBlind, Question: "Sky?", Options: []string{"red", "blue"}}}
	var answers []Answer
	for run := range 2 {
		st, _ := OpenStore(path)
		c := newTestClient(t, srv, Config{Store: st})
		srv.Reset()
		a, err := c.Ask(context.Background(), q)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{2, 0}[run]; len(srv.Requests()) != want {
			t.Errorf("run %d: %d requests, want %d", run, len(srv.Requests()), want)
		}
		answers = append(answers, a)
	}
	if !reflect.DeepEqual(answers[0], answers[1]) || answers[1].Prefill {
		t.Errorf("answers %+v", answers)
	}
}

// Queries asking the same thing at the same moment are one request.
func TestIdenticalQueriesInFlightAreAskedOnce(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Answer: believes("blue"), Delay: 20e6})
	defer srv.Close()
	st, _ := OpenStore(filepath.Join(t.TempDir(), "r.jsonl"))
	defer st.Close()
	q := Query{Prompt: letters.Parts{Kind: letters.KindBlind, Question: "Sky?", Options: []string{"red", "blue"}}}
	g := Group{Queries: []Query{q, q, q, q, q, q, q, q}}
	c := newTestClient(t, srv, Config{Store: st, MaxConcurrent: 8})
	res, stats := c.AskGroups(context.Background(), []Group{g})
	if len(srv.Requests()) != 1 || stats.Requests != 1 || stats.StoreHits != 7 || st.Len() != 1 {
		t.Errorf("%d requests, stats %+v, %d stored", len(srv.Requests()), stats, st.Len())
	}
	for i, r := range res[0] {
		if r.Err != nil || !reflect.DeepEqual(r.Answer, res[0][0].Answer) {
			t.Errorf("query %d: %+v", i, r)
		}
	}
}

func TestStoreRefusesASecondWriter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(path); err == nil || !strings.Contains(err.Error(), "in use by another run") {
		t.Errorf("second open: %v", err)
	}
	s.Close()
	s2, err := OpenStore(path)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	s2.Close()
}
