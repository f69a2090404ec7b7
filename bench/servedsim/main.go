// Command servedsim is a vLLM-like test server for bench/served.sh: it
// answers vidscreen's served readers on loopback (/v1/models,
// /v1/chat/completions with logprobs and continue_final_message) and takes
// the time a GPU server would, from what decides its throughput: prompt
// tokens computed at -prefill-tps (images counted as the -family model's
// processor counts them), a prefix cache of -cache-tokens (LRU over 16-token
// blocks of the longest common prefix), at most -max-seqs sequences in
// flight, and one sampled token. GET /stats reports the prefill tokens
// computed and saved by the cache; at exit (SIGTERM, SIGINT or -max-time)
// the same goes to -stats.
//
//	servedsim -addr 127.0.0.1:0 -url-file url.txt -model qwen2.5-7b-instruct -prefill-tps 40000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vidscreen/vidscreen/bench/servedsim/sim"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (a loopback address)")
	urlFile := flag.String("url-file", "", "write the base URL (http://HOST:PORT/v1) to `FILE` once listening")
	statsFile := flag.String("stats", "", "write the counts as JSON to `FILE` at exit")
	model := flag.String("model", "test-model", "the served model `NAME`")
	family := flag.String("family", sim.FamilyQwen25VL, "count image tokens as `FAMILY`'s processor does: qwen2.5-vl, llava-onevision, internvl or fixed")
	imageTokens := flag.Int("image-tokens", 256, "tokens per image with -family fixed")
	rate := flag.Float64("prefill-tps", 40000, "prompt tokens computed per second")
	step := flag.Duration("step", 2*time.Millisecond, "fixed cost of one engine step")
	maxSeqs := flag.Int("max-seqs", 256, "sequences in flight (vllm --max-num-seqs)")
	batched := flag.Int("max-batched-tokens", 8192, "tokens one step computes (vllm --max-num-batched-tokens)")
	cacheTokens := flag.Int("cache-tokens", 1<<20, "prefix cache size in tokens (0: no cache)")
	maxWaiting := flag.Int("max-waiting", 4096, "requests queued past -max-seqs before 429")
	maxTime := flag.Duration("max-time", 2*time.Hour, "exit after this long")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("servedsim: ")
	if *rate <= 0 {
		log.Fatal("-prefill-tps must be positive")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("-addr %q: %v", *addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		log.Fatalf("-addr %q: not a loopback address; this server listens on loopback only", *addr)
	}
	tok, err := sim.NewTokenizer(*family, *imageTokens)
	if err != nil {
		log.Fatalf("-family: %v", err)
	}
	eng := sim.NewEngine(sim.EngineConfig{PrefillRate: *rate, StepOverhead: *step, MaxSeqs: *maxSeqs, MaxBatchedTokens: *batched, CacheTokens: *cacheTokens, MaxWaiting: *maxWaiting})
	srv := sim.NewServer(*model, eng, tok)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *maxTime)
	defer cancel()
	go eng.Run(ctx)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		hs.Shutdown(shut)
	}()
	url := fmt.Sprintf("http://%s/v1", ln.Addr())
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("serving %s at %s", *model, url)
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	if *statsFile != "" {
		b, _ := json.MarshalIndent(srv.Stats(), "", "  ")
		if err := os.WriteFile(*statsFile, append(b, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
