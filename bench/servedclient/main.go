// Command servedclient drives vidscreen's served-reader client against
// servedsim servers for bench/served.sh and prints one JSON line of what it
// measured: requests per second against the servers' own capacity (their
// busy-time rate), the client's CPU seconds per request and peak resident
// memory, and the servers' prefill tokens computed and saved by their
// prefix caches.
//
//	servedclient -servers URL[,URL...] -model M -items 20000        # the text readers
//	servedclient -servers URL[,URL...] -vlm -items 400 -order grouped|item  # the VLM reader
//	servedclient -replicas -servers URL,URL...  # the servers as replicas (models.json's servers)
//
// The text readers go through models/served (served.Letters, as the audit's
// lm_reader), 64 prompts a call, in units of one reader, one order and one
// benchmark run -workers at a time, as the attack stage runs them, each
// call to the server with the fewest calls outstanding, or with -replicas
// through one reader over all the servers, which the client spreads
// itself (least outstanding, a video's queries kept on one); the VLM
// reader through openai.Client.AskStream, over the servers as replicas. -store keeps the replies
// (the audit's response store): a run killed and started again asks only
// what is missing; -load-only times reading a store back and exits. The
// report splits the servers' time over the run into computing, idle
// between a server's first request and its last reply, and idle before and
// after (the start and the tail), so that a run's losses can be told apart.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/vidscreen/vidscreen/bench/servedsim/sim"
	"github.com/vidscreen/vidscreen/models/openai"
	"github.com/vidscreen/vidscreen/models/served"
)

// report is the JSON line printed at the end.
type report struct {
	Kind        string  `json:"kind"`
	Servers     int     `json:"servers"`
	Items       int     `json:"items"`
	Prompts     int64   `json:"prompts"`
	Failed      int64   `json:"failed"`
	Checksum    string  `json:"checksum,omitempty"`
	Workers     int     `json:"workers,omitempty"`
	Concurrency int     `json:"concurrency"`
	Order       string  `json:"order,omitempty"`
	Replicas    bool    `json:"replicas,omitempty"`
	StoreLoad   float64 `json:"store_load_s"`
	StoreHeld   int     `json:"store_replies_at_start"`
	WallS       float64 `json:"wall_s"`
	CPUS        float64 `json:"cpu_s"`
	CPUMsPerReq float64 `json:"cpu_ms_per_request"`
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
	// Requests is what the servers received; RequestsPerS over the run's wall.
	Requests     int64   `json:"requests"`
	RequestsPerS float64 `json:"requests_per_s"`
	// CapacityPerS is what the servers could do: their number times the
	// mean requests per busy second of those that worked (a server the
	// client left idle counts as much as the others); Busy the share of
	// it the client used (RequestsPerS / CapacityPerS).
	CapacityPerS float64 `json:"capacity_requests_per_s"`
	Busy         float64 `json:"busy"`
	// Utilization is each server's busy time over its active time.
	Utilization    []float64 `json:"utilization"`
	MaxRunning     []int     `json:"max_running"`
	PromptTokens   int64     `json:"prompt_tokens"`
	ComputedTokens int64     `json:"computed_tokens"`
	CachedTokens   int64     `json:"cached_tokens"`
	Images         int64     `json:"images"`
	ImageTokens    int64     `json:"image_tokens"`
	AskedTwice     int64     `json:"asked_twice"`
	// Where the run's server time went, summed over the servers and
	// shared out over servers x wall: BusyShare computing, GapShare idle
	// between a server's first request and its last reply (the client
	// not keeping it fed), EdgeShare idle before its first request and
	// after its last reply (the start-up ramp and the tail).
	BusyShare float64 `json:"busy_share"`
	GapShare  float64 `json:"gap_share"`
	EdgeShare float64 `json:"edge_share"`
	// FirstS and LastS are the seconds from the run's start to the
	// earliest first request any server saw and from the latest last
	// reply to the run's end.
	FirstS float64 `json:"first_s"`
	LastS  float64 `json:"last_s"`
}

func main() {
	urls := flag.String("servers", "", "comma-separated base `URLS` of servedsim servers")
	model := flag.String("model", "test-model", "served model `NAME`")
	nItems := flag.Int("items", 20000, "items (four to a video)")
	orders := flag.Int("orders", 4, "orders each text reader asks an item in")
	bench := flag.Int("benchmark", 5000, "items per benchmark (a unit's share of an order)")
	workers := flag.Int("workers", 16, "units at once (the audit's --workers; one per CPU by default there)")
	conc := flag.Int("concurrency", 256, "requests in flight per server (server_concurrency)")
	storePath := flag.String("store", "", "response store `FILE` (resume: a second run asks only what is missing)")
	vlm := flag.Bool("vlm", false, "ask the VLM reader with frames instead of the text readers")
	frames := flag.Int("frames", 32, "frames per VLM query")
	ord := flag.String("order", "grouped", "VLM order: grouped (a video's items together) or item (items shuffled)")
	reset := flag.Bool("reset", true, "reset the servers' counts and caches first")
	replicas := flag.Bool("replicas", false, "the servers are replicas of one reader (models.json's servers): the client spreads the requests, not the driver")
	seed := flag.Uint64("seed", 1, "`SEED` of the items")
	loadOnly := flag.Bool("load-only", false, "with -store: time reading the store back (what a resumed run does first) and exit")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("servedclient: ")
	if *loadOnly {
		if *storePath == "" {
			log.Fatal("-load-only needs -store")
		}
		t0 := time.Now()
		st, err := openai.OpenStore(*storePath)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("{\"store_replies_at_start\":%d,\"store_load_s\":%.3f,\"peak_rss_mib\":%.0f}\n", st.Len(), time.Since(t0).Seconds(), peakRSSMiB())
		st.Close()
		return
	}
	list := strings.Split(*urls, ",")
	if *urls == "" {
		log.Fatal("-servers is required")
	}
	if *ord != "grouped" && *ord != "item" {
		log.Fatalf("-order %q: want grouped or item", *ord)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *reset {
		for _, u := range list {
			if err := post(root(u) + "/reset?cache=1"); err != nil {
				log.Fatal(err)
			}
		}
	}
	rep := report{Servers: len(list), Items: *nItems, Concurrency: *conc, Replicas: *replicas}
	if *vlm && len(list) > 1 {
		rep.Replicas = true // the VLM path always spreads through the client
	}
	var store *served.Store
	if *storePath != "" {
		t0 := time.Now()
		st, err := openai.OpenStore(*storePath) // timed alone: what a resumed run reads first
		if err != nil {
			log.Fatal(err)
		}
		rep.StoreHeld, rep.StoreLoad = st.Len(), time.Since(t0).Seconds()
		st.Close()
		store = served.NewStore(*storePath)
		defer store.Close()
	}
	items := makeItems(*nItems, 4, *seed)
	cpu0 := cpuSeconds()
	t0 := time.Now()
	if *vlm {
		rep.Kind, rep.Order = "vlm", *ord
		st, err := runVLM(ctx, vlmRun{urls: list, model: *model, items: items, frames: *frames, grouped: *ord == "grouped", concurrency: *conc, seed: *seed,
			started: func() { cpu0, t0 = cpuSeconds(), time.Now() }})
		if err != nil {
			log.Fatal(err)
		}
		rep.Prompts, rep.Failed = int64(st.Queries), int64(st.Failed)
	} else {
		rep.Kind, rep.Workers = "text", *workers
		res, err := runText(ctx, textRun{urls: list, model: *model, items: items, orders: *orders, benchmark: *bench, workers: *workers, concurrency: *conc, store: store, replicas: *replicas})
		if err != nil {
			log.Fatal(err)
		}
		rep.Prompts, rep.Failed, rep.Checksum = res.Prompts, res.Failed, res.Checksum
	}
	t1 := time.Now()
	rep.WallS = t1.Sub(t0).Seconds()
	rep.CPUS = cpuSeconds() - cpu0
	rep.PeakRSSMiB = peakRSSMiB()
	worked := 0
	var busy, active float64
	rep.FirstS, rep.LastS = rep.WallS, rep.WallS
	for _, u := range list {
		var s sim.Stats
		if err := get(root(u)+"/stats", &s); err != nil {
			log.Fatal(err)
		}
		busy += s.BusySeconds
		active += s.ActiveSeconds
		if s.FirstUnixNano > 0 {
			rep.FirstS = min(rep.FirstS, time.Unix(0, s.FirstUnixNano).Sub(t0).Seconds())
			rep.LastS = min(rep.LastS, t1.Sub(time.Unix(0, s.LastUnixNano)).Seconds())
		}
		rep.Requests += s.Requests
		if s.Capacity > 0 {
			rep.CapacityPerS += s.Capacity
			worked++
		}
		rep.Utilization = append(rep.Utilization, round3(s.Utilization))
		rep.MaxRunning = append(rep.MaxRunning, s.MaxRunning)
		rep.PromptTokens += s.PromptTokens
		rep.ComputedTokens += s.ComputedTokens
		rep.CachedTokens += s.CachedTokens
		rep.Images += s.Images
		rep.ImageTokens += s.ImageTokens
		rep.AskedTwice += s.AskedTwice
	}
	if sw := rep.WallS * float64(len(list)); sw > 0 {
		rep.BusyShare, rep.GapShare, rep.EdgeShare = round3(busy/sw), round3((active-busy)/sw), round3((sw-active)/sw)
	}
	if worked > 0 {
		rep.CapacityPerS *= float64(len(list)) / float64(worked)
	}
	if rep.WallS > 0 {
		rep.RequestsPerS = float64(rep.Requests) / rep.WallS
	}
	if rep.CapacityPerS > 0 {
		rep.Busy = round3(rep.RequestsPerS / rep.CapacityPerS)
	}
	if rep.Requests > 0 {
		rep.CPUMsPerReq = 1000 * rep.CPUS / float64(rep.Requests)
	}
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
}

// root is a base URL without its /v1.
func root(u string) string { return strings.TrimSuffix(strings.TrimRight(u, "/"), "/v1") }

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func peakRSSMiB() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // kilobytes on Linux
}

func post(url string) error {
	resp, err := http.Post(url, "application/json", nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("POST %s: %s", url, resp.Status)
	}
	return nil
}

func get(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
