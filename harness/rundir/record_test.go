package rundir

import (
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack"
)

var sampleRecords = []Record{
	{Key: "NExT-QA\x00val/4010069381_6", Attacker: "fixed-position", Variant: 0, Position: 17, Pred: attack.Prediction{Choice: 2, Scores: []float64{-1.6094379124341003, -1.2, 0.1 + 0.2}}},
	{Key: "B\x00id with spaces \"and quotes\"", Attacker: "copy", Variant: 4, Position: 0, Pred: attack.Prediction{Choice: 1, Scores: []float64{math.Inf(-1), 0}, Abstain: true}},
	{Key: "B\x00ünïcode", Attacker: "k-NN vote", Variant: 1, Position: 3, Pred: attack.Prediction{Choice: 0}},
	{Key: "B\x00v", Attacker: "centre-frame", Input: "0123456789abcdef", Pred: attack.Prediction{Choice: 1, Scores: []float64{0.25, 0.75}}},
	{Key: "B\x00f", Attacker: "options-reader", Variant: 2, Pred: attack.Prediction{Choice: 0, Scores: []float64{-0.1, -13.815510557964274}, Floored: true}},
	{Key: "B\x00g", Attacker: "blind-reader", Pred: attack.Prediction{Choice: 1, Scores: []float64{-13.815510557964274, -13.815510557964274}, Abstain: true, Floored: true}},
}

// TestRecordsFlagsField: the flags field holds Abstain as 1 and Floored as
// 2, so a line written before Floored existed (0 or 1) reads back as it
// did, and a value with another bit is no record.
func TestRecordsFlagsField(t *testing.T) {
	t.Parallel()
	line := func(flags string) []byte {
		payload := `"B\x00k" "options-reader" "" 0 3 1 ` + flags + ` -1,-0.5`
		return []byte(fmt.Sprintf("%d %08x %s", len(payload), crc32.ChecksumIEEE([]byte(payload)), payload))
	}
	for _, tt := range []struct {
		flags            string
		abstain, floored bool
		ok               bool
	}{
		{"0", false, false, true},
		{"1", true, false, true},
		{"2", false, true, true},
		{"3", true, true, true},
		{"4", false, false, false},
		{"-1", false, false, false},
	} {
		r, err := parseRecord(line(tt.flags))
		if (err == nil) != tt.ok {
			t.Errorf("flags %s: error %v, want ok %v", tt.flags, err, tt.ok)
			continue
		}
		if tt.ok && (r.Pred.Abstain != tt.abstain || r.Pred.Floored != tt.floored || r.Pred.Choice != 1 || r.Position != 3) {
			t.Errorf("flags %s: read %+v", tt.flags, r)
		}
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, r := range sampleRecords {
		line := AppendRecord(nil, &r)
		got, err := parseRecord(line[:len(line)-1])
		if err != nil {
			t.Fatalf("parse %q: %v", line, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %q:\n got %#v\nwant %#v", line, got, r)
		}
	}
}

func TestRecordsRefuseDamagedLines(t *testing.T) {
	line := AppendRecord(nil, &sampleRecords[0])
	line = line[:len(line)-1]
	flip := append([]byte(nil), line...)
	flip[len(flip)-3] ^= 1
	tests := []struct {
		name string
		line []byte
	}{
		{"a line cut short", line[:len(line)-4]},
		{"a flipped bit", flip},
		{"an empty line", nil},
		{"garbage", []byte("12 zzzzzzzz hello world!")},
		{"two records glued", append(append([]byte(nil), line...), line...)},
	}
	for _, tt := range tests {
		if r, err := parseRecord(tt.line); err == nil {
			t.Errorf("%s: read back as %+v", tt.name, r)
		}
	}
}

func TestStoreDropsTornTailAndAppendsAfterIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.log")
	s, dropped, err := OpenStore(path, func(Record) error { t.Fatal("new store has records"); return nil })
	if err != nil || dropped != 0 {
		t.Fatal(err, dropped)
	}
	if err := s.Append(sampleRecords[:2]); err != nil {
		t.Fatal(err)
	}
	s.Close()
	full, _ := os.ReadFile(path)
	third := AppendRecord(nil, &sampleRecords[2])
	for cut := 0; cut < len(third); cut++ {
		// Simulate a kill while the third record was being written.
		if err := os.WriteFile(path, append(append([]byte(nil), full...), third[:cut]...), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []Record
		s, dropped, err := OpenStore(path, func(r Record) error { got = append(got, r); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if dropped != int64(cut) || !reflect.DeepEqual(got, sampleRecords[:2]) {
			t.Fatalf("cut at %d: dropped %d, read %d records", cut, dropped, len(got))
		}
		if err := s.Append(sampleRecords[2:3]); err != nil {
			t.Fatal(err)
		}
		s.Close()
		after, _ := os.ReadFile(path)
		if string(after) != string(full)+string(third) {
			t.Fatalf("cut at %d: file after resume differs", cut)
		}
	}
}
