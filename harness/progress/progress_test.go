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
	t.Parallel()
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

// screen replays what the board writes as a terminal shows it: printable
// text, newlines, and the three sequences the board uses (CSI n F, CSI J,
// CSI K). It fails the test on any other escape, and on a line longer than
// width (which a terminal would wrap).
func screen(t *testing.T, out string, width int) []string {
	t.Helper()
	lines := []string{""}
	row, col := 0, 0
	put := func(r rune) {
		l := []rune(lines[row])
		for len(l) < col {
			l = append(l, ' ')
		}
		if col < len(l) {
			l[col] = r
		} else {
			l = append(l, r)
		}
		lines[row] = string(l)
		col++
	}
	rs := []rune(out)
	for k := 0; k < len(rs); k++ {
		switch r := rs[k]; {
		case r == '\n':
			row, col = row+1, 0
			if row == len(lines) {
				lines = append(lines, "")
			}
		case r == '\x1b':
			if k+1 >= len(rs) || rs[k+1] != '[' {
				t.Fatalf("escape without CSI at %d in %q", k, out)
			}
			n, e := 0, k+2
			for e < len(rs) && rs[e] >= '0' && rs[e] <= '9' {
				n = n*10 + int(rs[e]-'0')
				e++
			}
			switch rs[e] {
			case 'F':
				row, col = max(row-max(n, 1), 0), 0
			case 'J':
				lines = lines[:row+1]
				lines[row] = string([]rune(lines[row])[:min(col, len([]rune(lines[row])))])
			case 'K':
				lines[row] = string([]rune(lines[row])[:min(col, len([]rune(lines[row])))])
			default:
				t.Fatalf("unexpected sequence CSI %d %c in %q", n, rs[e], out)
			}
			k = e
		default:
			put(r)
			if col > width {
				t.Fatalf("line %d runs past %d columns: %q", row, width, lines[row])
			}
		}
	}
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// On a terminal every live stage has its own line, redrawn in place: two
// stages running at once never share a line, a stage that ends leaves one
// line saying so, and once the run ends nothing of the live lines is left,
// so what is printed next (the summary) is the last thing on the screen.
func TestTerminalBoardOneLinePerLiveStage(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	const width = 60
	r, err := New(&buf, Options{Terminal: true, Width: width})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1000, 0)}
	r.now = c.now
	r.Note("resumed", "stored", 2)
	decode := r.Stage("decode", 0, "frames")
	videos := r.Stage("features", 100, "videos with a long unit name that does not fit")
	c.advance(4 * time.Second)
	decode.Add(978)
	videos.Add(11)
	r.redraw(true)
	live := screen(t, buf.String(), width)
	if len(live) != 3 {
		t.Fatalf("screen while two stages run:\n%s\nwant the note and one line per stage", strings.Join(live, "\n"))
	}
	if !strings.HasPrefix(live[1], "decode ") || !strings.Contains(live[1], "978 frames (total unknown)") || strings.Contains(live[1], "features") {
		t.Errorf("decode's line %q", live[1])
	}
	if !strings.HasPrefix(live[2], "features ") || !strings.Contains(live[2], "11/100") || !strings.HasSuffix(live[2], "…") {
		t.Errorf("features' line %q, want its count, cut to the width", live[2])
	}
	r.Warn("vlm_reader is served by a server: skipped")
	decode.Finish()
	videos.Add(89)
	videos.Finish()
	r.Close()
	buf.Write([]byte("summary\n"))
	got := screen(t, buf.String(), width)
	want := []string{
		"resumed stored=2",
		"warning: vlm_reader is served by a server: skipped",
		"decode     done: 978 frames in 4s, 244 frames/s",
		"features   done: 100 videos with a long unit name that doe…",
		"summary",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen at the end:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A stage stopped by an error or Ctrl-C says where it stopped.
func TestTerminalStoppedStage(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	r, _ := New(&buf, Options{Terminal: true})
	c := &clock{t: time.Unix(1000, 0)}
	r.now = c.now
	m := r.Stage("attack", 40, "items")
	m.Add(10)
	c.advance(65 * time.Second)
	r.Close()
	got := screen(t, buf.String(), 100)
	if len(got) != 1 || got[0] != "attack     stopped at 10/40 items after 1m05s" {
		t.Errorf("screen %q", got)
	}
}

// Piped, a stage whose total is not known says so rather than total=0, and
// a warning is a record in the run's format like every other line.
func TestLogUnknownTotalAndWarnings(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	r, _ := New(&buf, Options{Format: "json", Every: time.Hour})
	m := r.Stage("decode", 0, "frames")
	m.Add(3)
	w := r.Warnings("vidscreen audit: ")
	w.Write([]byte("vidscreen audit: lm_reader is served by x; the model readers are skipped\nand a second"))
	w.Write([]byte(" line\n"))
	m.Finish()
	recs := records(t, buf.String())
	if len(recs) != 4 {
		t.Fatalf("records %v, want start, two warnings, done", recs)
	}
	if recs[0]["total"] != "unknown" || recs[3]["total"] != "unknown" {
		t.Errorf("records %v: total of an unknown-size stage", recs)
	}
	if recs[1]["level"] != "WARN" || recs[1]["msg"] != "lm_reader is served by x; the model readers are skipped" || recs[2]["msg"] != "and a second line" {
		t.Errorf("warning records %v %v", recs[1], recs[2])
	}
}

func TestNilReporterAndMeterDoNothing(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
