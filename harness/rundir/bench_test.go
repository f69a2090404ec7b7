package rundir

import (
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack"
)

func benchRecords(n int) []Record {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Key: "NExT-QA\x00val/4010069381_" + string(rune('a'+i%26)), Attacker: "regression", Variant: i % 5, Position: i,
			Pred: attack.Prediction{Choice: i % 5, Scores: []float64{-1.6094379124341003, -1.2039728043259361, -2.3025850929940455, -1.8971199848858813, -0.916290731874155}}}
	}
	return recs
}

// BenchmarkRecordsAppend measures storing predictions: one batch of 30,000
// records (one unit on the full data) per Append, with its fsync.
func BenchmarkRecordsAppend(b *testing.B) {
	recs := benchRecords(30000)
	s, _, err := OpenStore(filepath.Join(b.TempDir(), RecordsFile), func(Record) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if err := s.Append(recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRecordsOpen measures reading stored predictions back on resume.
func BenchmarkRecordsOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), RecordsFile)
	s, _, err := OpenStore(path, func(Record) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	const n = 200000
	if err := s.Append(benchRecords(n)); err != nil {
		b.Fatal(err)
	}
	s.Close()
	for b.Loop() {
		s, _, err := OpenStore(path, func(Record) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
