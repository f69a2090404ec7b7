package rundir

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack"
)

// FuzzRecordRoundTrip: every record AppendRecord writes reads back equal.
func FuzzRecordRoundTrip(f *testing.F) {
	for _, r := range sampleRecords {
		s := 0.0
		if len(r.Pred.Scores) > 0 {
			s = r.Pred.Scores[0]
		}
		f.Add(r.Key, r.Attacker, r.Input, r.Variant, r.Position, r.Pred.Choice, r.Pred.Abstain, r.Pred.Floored, s)
	}
	f.Fuzz(func(t *testing.T, key, attacker, input string, variant, position, choice int, abstain, floored bool, score float64) {
		r := Record{Key: key, Attacker: attacker, Input: input, Variant: variant, Position: position,
			Pred: attack.Prediction{Choice: choice, Abstain: abstain, Floored: floored, Scores: []float64{score, -score}}}
		line := AppendRecord([]byte("prefix "), &r)
		got, err := NewRecordReader(bytes.NewReader(line[len("prefix "):])).Read()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if score != score { // NaN is never equal: compare the rest
			got.Pred.Scores, r.Pred.Scores = nil, nil
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("%q read back as %+v, want %+v", line, got, r)
		}
	})
}

// FuzzRecordReader: any input reads without a panic, each error a
// *RecordError or the end, and the offset never passes the input.
func FuzzRecordReader(f *testing.F) {
	f.Add(AppendRecord(nil, &sampleRecords[0]))
	f.Add([]byte("12 zzzzzzzz hello world!\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewRecordReader(bytes.NewReader(in))
		for {
			_, err := r.Read()
			if r.Offset() > int64(len(in)) {
				t.Fatalf("offset %d past %d bytes", r.Offset(), len(in))
			}
			if err == io.EOF {
				return
			}
			var re *RecordError
			if err != nil && !errors.As(err, &re) {
				t.Fatalf("error %v is no *RecordError", err)
			}
		}
	})
}
