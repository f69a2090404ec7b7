package progress

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the ticker goroutine and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// records decodes JSON log lines.
func records(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLogStageWritesStartProgressAndEnd(t *testing.T) {
	var buf syncBuffer
	r, err := New(&buf, Options{Format: "json", Every: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1000, 0)}
	r.now = c.now
	m := r.Stage(" embed ", 100, "texts")
	c.advance(10 * time.Second)
	m.Add(40)
	// The ticker writes whether or not anything moved; wait for one record.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "stage progress") {
		if time.Now().After(deadline) {
			t.Fatalf("no progress record written while the stage ran:\n%s", buf.String())
		}
		time.Sleep(time.Millisecond)
	}
	m.Add(60)
	m.Finish()
	m.Finish() // a second end does nothing
	recs := records(t, buf.String())
	if got := recs[0]["msg"]; got != "stage start" {
		t.Fatalf("first record %v, want stage start", recs[0])
	}
	if recs[0]["stage"] != "embed" || recs[0]["total"] != 100.0 || recs[0]["unit"] != "texts" {
		t.Errorf("start record %v", recs[0])
	}
	var progress map[string]any
	for _, rec := range recs {
		if rec["msg"] == "stage progress" {
			progress = rec
			break
		}
	}
	// 40 texts in 10 s: 4 texts/s, 60 left: 15 s.
	if progress["done"] != 40.0 || progress["rate"] != 4.0 || progress["eta_s"] != 15.0 || progress["elapsed_s"] != 10.0 {
		t.Errorf("progress record %v, want done 40, rate 4, eta_s 15, elapsed_s 10", progress)
	}
	last := recs[len(recs)-1]
	if last["msg"] != "stage done" || last["done"] != 100.0 || last["level"] != "INFO" {
		t.Errorf("last record %v, want stage done with 100", last)
	}
	if _, ok := last["eta_s"]; ok {
		t.Errorf("a finished stage has no ETA: %v", last)
	}
	if n := strings.Count(buf.String(), "stage done"); n != 1 {
		t.Errorf("%d end records, want 1", n)
	}
}

func TestTextFormatIsOneLinePerRecord(t *testing.T) {
	var buf syncBuffer
	r, err := New(&buf, Options{Format: "text", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Stage("attack", 10, "items")
	m.Add(3)
	m.Exit()
	r.Note("resumed", "stored", 3, "left", 7)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{`msg="stage start" stage=attack total=10 unit=items`, `level=WARN msg="stage stopped" stage=attack done=3 total=10`, `msg=resumed stored=3 left=7`}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want it to contain %q", i, lines[i], w)
		}
	}
}

func TestTerminalDrawsABarAndNotes(t *testing.T) {
	var buf syncBuffer
	r, err := New(&buf, Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Note("resumed", "stored", 2)
	m := r.Stage("write", 2, "files")
	m.Add(2)
	m.Finish()
	s := r.Stage("duplicates", 0, "joins") // a spinner: unknown total
	s.Finish()
	out := buf.String()
	for _, want := range []string{"resumed stored=2\n", "write", "2/2", "duplicates"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "msg=") {
		t.Errorf("terminal output holds log records:\n%q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("terminal output does not end its last bar's line: %q", out)
	}
}

func TestNilReporterAndMeterDoNothing(t *testing.T) {
	var r *Reporter
	m := r.Stage("read", 3, "files")
	m.Add(1)
	m.Finish()
	m.Exit()
	r.Note("x")
	r.Close()
	if m.Done() != 0 || r.Logger() != nil {
		t.Error("a nil reporter counted something")
	}
}

func TestCloseStopsOpenStages(t *testing.T) {
	var buf syncBuffer
	r, _ := New(&buf, Options{Format: "json", Every: time.Hour})
	r.Stage("embed", 5, "texts")
	done := r.Stage("read", 1, "files")
	done.Finish()
	r.Close()
	recs := records(t, buf.String())
	if last := recs[len(recs)-1]; last["msg"] != "stage stopped" || last["stage"] != "embed" {
		t.Errorf("last record %v, want the open embed stage stopped", last)
	}
	if n := strings.Count(buf.String(), "stage stopped"); n != 1 {
		t.Errorf("%d stopped records, want 1 (a finished stage is not stopped again)", n)
	}
}

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{{"", "text", true}, {"text", "text", true}, {"json", "json", true}, {"JSON", "", false}, {"logfmt", "", false}} {
		got, err := ParseFormat(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseFormat(%q) = %q, %v", c.in, got, err)
		}
	}
	if _, err := New(&bytes.Buffer{}, Options{Format: "yaml"}); err == nil {
		t.Error("New accepted format yaml")
	}
}

// BenchmarkMeterAdd measures the cost a stage pays per counted unit, from
// many goroutines at once, as the attack workers count items.
func BenchmarkMeterAdd(b *testing.B) {
	for _, c := range []struct {
		name string
		term bool
	}{{"log", false}, {"terminal", true}} {
		b.Run(c.name, func(b *testing.B) {
			var buf syncBuffer
			r, _ := New(&buf, Options{Terminal: c.term, Every: time.Hour})
			m := r.Stage("attack", int64(b.N)+1, "items")
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					m.Add(1)
				}
			})
			m.Exit()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "adds/s")
		})
	}
}
