package harness_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
)

// demoBytes returns the embedded default's item files (real annotations of
// four benchmarks) concatenated into one JSONL stream.
func demoBytes(b *testing.B) []byte {
	var all []byte
	for _, name := range demo.Items() {
		data, err := fs.ReadFile(demo.FS(), name)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

func BenchmarkJSONLReader(b *testing.B) {
	data := demoBytes(b)
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		items, err := harness.NewJSONLReader(bytes.NewReader(data), "demo.jsonl").ReadAll()
		if err != nil {
			b.Fatal(err)
		}
		n += len(items)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}

// parquetRow mirrors the item fields for writing the benchmark's input.
type parquetRow struct {
	ID        string   `parquet:"id"`
	Benchmark string   `parquet:"benchmark"`
	Video     string   `parquet:"video"`
	Question  string   `parquet:"question"`
	Options   []string `parquet:"options,list"`
	Answer    int64    `parquet:"answer"`
	Task      string   `parquet:"task"`
	Duration  *float64 `parquet:"duration,optional"`
}

func BenchmarkParquetReader(b *testing.B) {
	items, err := harness.NewJSONLReader(bytes.NewReader(demoBytes(b)), "demo.jsonl").ReadAll()
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]parquetRow, len(items))
	for i, it := range items {
		rows[i] = parquetRow{it.ID, it.Benchmark, it.Video, it.Question, it.Options, int64(it.Answer), it.Task, it.Duration}
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		r, err := harness.NewParquetReader(bytes.NewReader(data), int64(len(data)), "demo.parquet")
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}

func BenchmarkReadFS(b *testing.B) {
	n := 0
	for b.Loop() {
		items, err := harness.ReadFS(context.Background(), demo.FS(), demo.Items(), harness.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n += len(items)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}
