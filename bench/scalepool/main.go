// Command scalepool writes a synthetic pool of benchmarks for
// bench/scale.sh: -items items in about -items/5000 benchmarks (at least
// two) of log-normal sizes, as real pools have (Video-Index's runs from a
// few hundred items to tens of thousands per benchmark), one JSONL file
// per benchmark in -out.
//
// Every item is a real item of the input files with its text perturbed:
// one word in ten of the items is replaced (near-duplicates of their
// source, as pools hold), the rest have each word replaced with
// probability 0.4 by a word of the inputs' vocabulary, and the options
// are shuffled (the answer follows). Four consecutive items of a
// benchmark share a video, about the 4.1 items per video of Video-Index's
// 505,518 items over 123,281 videos. The output depends only on the
// inputs and -seed.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

func main() {
	n := flag.Int("items", 50000, "items in the pool")
	out := flag.String("out", "", "write one JSONL file per benchmark to `DIR`")
	seed := flag.Uint64("seed", 1, "`SEED` of the draw")
	flag.Parse()
	log.SetFlags(0)
	if *out == "" || flag.NArg() == 0 || *n < 2 {
		log.Fatal("usage: scalepool -items N -out DIR FILE.jsonl...")
	}
	src, err := harness.ReadFiles(context.Background(), flag.Args(), harness.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if len(src) == 0 {
		log.Fatal("scalepool: no items in the inputs")
	}
	var vocab []string
	seen := map[string]bool{}
	for _, it := range src {
		for _, w := range strings.Fields(it.Question) {
			if !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	}
	rng := rand.New(rand.NewPCG(*seed, 0x5ca1e))
	sizes := benchmarkSizes(rng, *n)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	perturb := func(s string, p float64) string {
		words := strings.Fields(s)
		if len(words) == 0 {
			return s
		}
		if p == 0 {
			words[rng.IntN(len(words))] = vocab[rng.IntN(len(vocab))]
		}
		for i := range words {
			if p > 0 && rng.Float64() < p {
				words[i] = vocab[rng.IntN(len(vocab))]
			}
		}
		return strings.Join(words, " ")
	}
	for b, size := range sizes {
		name := fmt.Sprintf("scale-%03d", b)
		path := filepath.Join(*out, name+".jsonl")
		f, err := os.Create(path)
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		enc := json.NewEncoder(w)
		for i := 0; i < size; i++ {
			s := src[rng.IntN(len(src))]
			p := 0.4
			if rng.IntN(10) == 0 {
				p = 0 // one word replaced: a near-duplicate of its source
			}
			perm := rng.Perm(len(s.Options))
			opts := make([]string, len(s.Options))
			answer := 0
			for k, from := range perm {
				opts[k] = s.Options[from]
				if p > 0 && rng.IntN(3) == 0 {
					opts[k] = perturb(opts[k], 0.3)
				}
				if from == s.Answer {
					answer = k
				}
			}
			it := harness.Item{
				ID: fmt.Sprintf("%s/%07d", name, i), Benchmark: name, Video: fmt.Sprintf("%s-v%06d", name, i/4),
				Question: perturb(s.Question, p), Options: opts, Answer: answer, Task: s.Task, Duration: s.Duration, Group: s.Group,
			}
			if err := enc.Encode(&it); err != nil {
				log.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("%d items in %d benchmarks written to %s\n", *n, len(sizes), *out)
}

// benchmarkSizes draws max(2, n/5000) log-normal sizes (median 1, sigma
// 1.2) scaled to sum to n, each at least 50 items.
func benchmarkSizes(rng *rand.Rand, n int) []int {
	k := max(2, n/5000)
	w := make([]float64, k)
	var sum float64
	for i := range w {
		w[i] = math.Exp(1.2 * rng.NormFloat64())
		sum += w[i]
	}
	sizes := make([]int, k)
	left := n
	for i := range sizes {
		sizes[i] = max(50, int(float64(n)*w[i]/sum))
		left -= sizes[i]
	}
	// Put the rounding on the largest benchmark.
	big := 0
	for i, s := range sizes {
		if s > sizes[big] {
			big = i
		}
	}
	sizes[big] += left
	return sizes
}
