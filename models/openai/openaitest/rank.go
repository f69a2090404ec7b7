package openaitest

import (
	"encoding/json"
	"math"
	"sort"
)

type ranked struct {
	token   string
	logprob float64
}

// rank normalises a distribution and orders it most likely first, ties by
// token, zeros dropped.
func rank(top map[string]float64) []ranked {
	// Summed in token order: a sum in map order would differ in its last
	// bits from one request to the next.
	tokens := make([]string, 0, len(top))
	for t := range top {
		tokens = append(tokens, t)
	}
	sort.Strings(tokens)
	sum := 0.0
	for _, t := range tokens {
		if p := top[t]; p > 0 {
			sum += p
		}
	}
	var out []ranked
	for _, t := range tokens {
		if p := top[t]; p > 0 {
			out = append(out, ranked{t, math.Log(p / sum)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].logprob != out[j].logprob {
			return out[i].logprob > out[j].logprob
		}
		return out[i].token < out[j].token
	})
	return out
}

// byteList is a token's UTF-8 bytes as the list of integers vLLM sends.
func byteList(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
