package tokenizer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// benchQuestions reads the questions of the shared benchmark annotations
// (../shared/data/*.jsonl), up to n, in file order.
func benchQuestions(b *testing.B, n int) []string {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(shareddata.Path(b), "*.jsonl"))
	if len(files) == 0 {
		b.Skipf("no %s", filepath.Join(shareddata.Path(b), "*.jsonl"))
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var k int
		for sc.Scan() && k < n/len(files) {
			var item struct {
				Question string `json:"question"`
			}
			if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			out = append(out, item.Question)
			k++
		}
		fh.Close()
	}
	return out
}

// benchBatch is the batch size of the benchmarks: what a text encoder
// takes at once.
const benchBatch = 256

func benchmarkEncode(b *testing.B, file string, batch bool) {
	tok := loadShared(b, file)
	tok.SetPadding(nil)
	tok.SetTruncation(nil)
	texts := benchQuestions(b, 4096)
	ctx := context.Background()
	tokens := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		from := (i * benchBatch) % (len(texts) - benchBatch)
		chunk := texts[from : from+benchBatch]
		if batch {
			encs, err := tok.EncodeBatch(ctx, chunk, true)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range encs {
				tokens += e.Len()
			}
			continue
		}
		for _, s := range chunk {
			e, err := tok.Encode(s, true)
			if err != nil {
				b.Fatal(err)
			}
			tokens += e.Len()
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkEncode measures tokens/s on batches of 256 real questions, one
// Encode call per text (Single) and one EncodeBatch call per batch (Batch).
// The BPE word cache is warm after the first batches, as in a long run.
func BenchmarkEncode(b *testing.B) {
	for _, f := range []struct{ name, file string }{
		{"BERT", "bert_wordpiece_tokenizer.json"},
		{"CLIP", "clip_bpe_tokenizer.json"},
	} {
		b.Run(f.name+"/Single", func(b *testing.B) { benchmarkEncode(b, f.file, false) })
		b.Run(f.name+"/Batch", func(b *testing.B) { benchmarkEncode(b, f.file, true) })
	}
}

// BenchmarkCLIPColdCache measures CLIP tokens/s with an empty BPE word
// cache for every batch: the cost of merging, not of looking up.
func BenchmarkCLIPColdCache(b *testing.B) {
	tok := loadShared(b, "clip_bpe_tokenizer.json")
	texts := benchQuestions(b, 4096)
	m := tok.model.(*bpe)
	tokens := 0
	for i := 0; b.Loop(); i++ {
		m.cache = newWordCache(bpeCacheCapacity)
		from := (i * benchBatch) % (len(texts) - benchBatch)
		for _, s := range texts[from : from+benchBatch] {
			e, err := tok.Encode(s, true)
			if err != nil {
				b.Fatal(err)
			}
			tokens += e.Len()
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkLoad(b *testing.B) {
	for _, f := range []string{"bert_wordpiece_tokenizer.json", "clip_bpe_tokenizer.json"} {
		b.Run(f, func(b *testing.B) {
			path := shareddata.Path(b, "tokenizers", f)
			data, err := os.ReadFile(path)
			if err != nil {
				b.Skipf("%s: %v", path, err)
			}
			for b.Loop() {
				if _, err := FromJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
