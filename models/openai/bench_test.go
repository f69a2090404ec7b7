package openai

import (
	"context"
	"fmt"
	"github.com/vidscreen/vidscreen/models/letters"
	"math/rand/v2"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// benchGroups are videos with frames frames each (448x252 gradients with
// mild noise: about 25 KB of JPEG, as a real frame), each asked items
// questions by a frames reader and a blind reader under two orders.
func benchGroups(b *testing.B, videos, frames, items int) []Group {
	rng := rand.New(rand.NewPCG(1, 2))
	var gs []Group
	for v := range videos {
		fr := make([]*Image, frames)
		for i := range fr {
			pix := make([]byte, 3*448*252)
			for p := range pix {
				x, y := (p/3)%448, (p/3)/448
				pix[p] = byte((x*(p%3+1)+y*(i+1)+v*40)%224 + rng.IntN(32))
			}
			im, err := EncodeFrame(pix, 448, 252, 0)
			if err != nil {
				b.Fatal(err)
			}
			fr[i] = im
		}
		g := Group{Name: fmt.Sprint(v)}
		for it := range items {
			opts := []string{"red", "blue", "green", "black"}
			q := fmt.Sprintf("Question %d about video %d?", it, v)
			g.Queries = append(g.Queries,
				Query{Frames: fr, Prompt: letters.Parts{Kind: letters.KindVisual, Question: q, Options: opts}},
				Query{Prompt: letters.Parts{Kind: letters.KindBlind, Question: q, Options: opts}, Order: []int{1, 0, 3, 2}},
				Query{Prompt: letters.Parts{Kind: letters.KindBlind, Question: q, Options: opts}, Order: []int{3, 2, 0, 1}})
		}
		gs = append(gs, g)
	}
	return gs
}

// BenchmarkAskGroups measures the client path (build, encode, hash and send
// each request, read its reply) against the in-process test server, which
// shares the CPU: requests/s and images/s at 1, 8 and 64 in flight, for
// videos of 8 frames with 4 items each.
func BenchmarkAskGroups(b *testing.B) {
	srv := openaitest.New(openaitest.Config{Answer: believes("blue")})
	defer srv.Close()
	groups := benchGroups(b, 4, 8, 4)
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			c := newTestClient(b, srv, Config{MaxConcurrent: conc})
			var total Stats
			for b.Loop() {
				_, st := c.AskGroups(context.Background(), groups)
				if st.Failed != 0 {
					b.Fatalf("%d failed", st.Failed)
				}
				total = total.Add(st)
			}
			b.ReportMetric(total.RequestsPerSecond(), "requests/s")
			b.ReportMetric(float64(total.Images)/total.Elapsed.Seconds(), "images/s")
			var bytes int
			for _, f := range groups[0].Queries[0].Frames {
				bytes += len(f.Data)
			}
			b.ReportMetric(float64(bytes)/float64(len(groups[0].Queries[0].Frames)), "JPEG-bytes/frame")
			srv.Reset()
		})
	}
}

// BenchmarkChatBody measures what the client does to each request before
// sending it, without the server: write the 32-frame body and hash it for
// the store.
func BenchmarkChatBody(b *testing.B) {
	q := benchGroups(b, 1, 32, 1)[0].Queries[0]
	order, _ := q.check()
	c := newTestClient(b, openaitest.New(openaitest.Config{}), Config{})
	var n int
	for b.Loop() {
		msgs, err := q.messages(order, true)
		if err != nil {
			b.Fatal(err)
		}
		body, err := c.chatBody(msgs, true, true)
		if err != nil {
			b.Fatal(err)
		}
		_ = requestKey("/chat/completions", body)
		n = len(body)
	}
	b.SetBytes(int64(n))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}
