package screen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/report"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/kernels"
)

// identityFixture: five items of two benchmarks whose question+options
// embeddings are all the same (cosine 1), so that only the video decides
// the duplicate steps (Video-Index 5.1, pool/dedup.py: same video AND
// cosine > 0.90 within, >= 0.90 across). hashed gives each row the SHA-256
// of its video's bytes (h1, h2, h3 stand for them); otherwise the run
// recorded none and the paths decide.
//
//	A/x1  a/clip.mp4       h1
//	A/x2  a/copy.mp4       h1  the same bytes as x1 under another path
//	A/x3  clip.mp4         h2  A's root
//	B/y1  clip.mp4         h3  B's root: the same path string, other bytes
//	B/y2  b/renamed.mp4    h1  x1's bytes again, in another benchmark
func identityFixture(hashed bool) *Input {
	h1, h2, h3 := strings.Repeat("1", 64), strings.Repeat("2", 64), strings.Repeat("3", 64)
	rows := []struct{ id, bench, video, hash string }{
		{"x1", "A", "a/clip.mp4", h1},
		{"x2", "A", "a/copy.mp4", h1},
		{"x3", "A", "clip.mp4", h2},
		{"y1", "B", "clip.mp4", h3},
		{"y2", "B", "b/renamed.mp4", h1},
	}
	in := &Input{Run: "identity"}
	q := kernels.NewMatrix(len(rows), 2)
	for i, r := range rows {
		row := Row{ID: r.id, Benchmark: r.bench, Video: r.video, Options: []string{"w", "x", "y", "z"}, Cluster: -1, Quality: []string{}, Embedding: int32(i)}
		if hashed {
			row.VideoID = r.hash
		}
		copy(q.Row(i), []float32{0.6, 0.8})
		in.Rows = append(in.Rows, row)
	}
	in.Embeddings = Embeddings{Question: q, Text: q}
	return in
}

// TestDuplicatesByVideoContent: by content, x2 (x1's bytes under another
// path) is a duplicate of x1, the smaller id, and y2 (x1's bytes in B) a
// cross-benchmark duplicate of A/x1; x3 and y1 share a path string but not
// their bytes, so both stay. By path (a run that recorded no hash) the
// same items give the opposite: x1, x2 and y2 are three videos, and y1 is
// a cross-benchmark duplicate of A/x3.
func TestDuplicatesByVideoContent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		hashed bool
		want   map[string]string // id -> removed_by/duplicate_of; absent: kept
	}{
		{"by content", true, map[string]string{"x2": StepDuplicate + "/x1", "y2": StepCrossDuplicate + "/A/x1"}},
		{"by path", false, map[string]string{"y1": StepCrossDuplicate + "/A/x3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compute(identityFixture(tt.hashed), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range s.Rows {
				got := ""
				if r.RemovedBy != "" {
					got = r.RemovedBy + "/" + r.DuplicateOf
				}
				if got != tt.want[r.ID] || r.Kept != (got == "") {
					t.Errorf("%s: removed %q kept %v, want %q", r.ID, got, r.Kept, tt.want[r.ID])
				}
				if tt.hashed == (r.VideoID == r.Video) {
					t.Errorf("%s: video_id %q", r.ID, r.VideoID)
				}
			}
		})
	}
}

// TestReadItemsVideoHash: items.parquet's video_identity (where the run
// wrote one), else its video_sha256, gives each row's VideoID ("" where
// the video failed), and the note
// says which identity the duplicate steps used; a file without the column
// (an older run) or with an empty one (no video level) falls back to the
// paths, said so.
func TestReadItemsVideoHash(t *testing.T) {
	t.Parallel()
	items := []*harness.Item{
		{ID: "x1", Benchmark: "A", Video: "a/clip.mp4", Options: []string{"w", "x"}},
		{ID: "x2", Benchmark: "A", Video: "a/copy.mp4", Options: []string{"w", "x"}},
		{ID: "x3", Benchmark: "A", Video: "gone.mp4", Options: []string{"w", "x"}},
	}
	h, g := strings.Repeat("ab", 32), strings.Repeat("01", 32)
	for _, tt := range []struct {
		name             string
		hashes, failures []string
		identities       []string
		want             []string
		note             string
	}{
		{"perceptual: x2 a re-encode of x1", []string{h, g, ""}, []string{"", "", "missing"}, []string{"perceptual:sha256:" + g, "perceptual:sha256:" + g, "id:gone.mp4"},
			[]string{"perceptual:sha256:" + g, "perceptual:sha256:" + g, ""}, "content+perceptual (items.parquet video_identity)"},
		{"hashed, one failed", []string{h, h, ""}, []string{"", "", "missing"}, nil, []string{h, h, ""}, "by content (the SHA-256 of the video's bytes, items.parquet video_sha256) for 2 of 3 items"},
		{"hashed", []string{h, h, h}, []string{"", "", ""}, nil, []string{h, h, h}, "video identity: by content"},
		{"no videos", nil, nil, nil, []string{"", "", ""}, "video identity: by path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), rundir.ItemsParquet)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			r := &report.Report{Items: items, VideoSHA256: tt.hashes, VideoIdentity: tt.identities, Failures: tt.failures}
			if err := r.WriteItemsParquet(f); err != nil {
				t.Fatal(err)
			}
			f.Close()
			rows, err := readItems(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				if r.VideoID != tt.want[i] {
					t.Errorf("%s: VideoID %q, want %q", r.ID, r.VideoID, tt.want[i])
				}
			}
			if n := identityNote(rows); !strings.Contains(n, tt.note) {
				t.Errorf("note %q, want %q in it", n, tt.note)
			}
		})
	}
}

// TestReadOrdersMargins: the permutation cache of the options-only reader
// gives its choices and margins on the seeded orders 1 to 4 (a fifth is
// not read); a cache written before
// the margins were kept (a plain list of choices) gives the choices and no
// margins, never zeros, and the note says the margin condition falls back
// to the original order.
func TestReadOrdersMargins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := &runConfig{Seed: 3}
	rows := []Row{{ID: "x1", Benchmark: "A", Options: []string{"w", "x", "y", "z"}}, {ID: "x2", Benchmark: "A", Options: []string{"w", "x", "y", "z"}}}
	atts := []Attacker{{Name: or, Level: "option"}, {Name: fp, Level: "option"}}
	keys := []string{rows[0].Key(), rows[1].Key()}
	write := func(o int, v any) {
		path := rundir.PermutationFile(dir, or, cfg.Seed, o, keys)
		os.MkdirAll(filepath.Dir(path), 0o755)
		b, _ := json.Marshal(v)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for o := 1; o <= 5; o++ {
		write(o, map[string]any{"choices": []int{0, o % 4}, "margins": []any{float64(o), nil}})
	}
	in := &Input{Attackers: atts, Rows: rows}
	var err error
	if in.Orders, in.OrderMargins, err = readOrders(dir, rows, atts, cfg); err != nil {
		t.Fatal(err)
	}
	m := in.OrderMargins[or]
	if len(in.Orders[or]) != 4 || in.Orders[or][2][1] != 3 || in.Orders[or][3][1] != 0 || len(m) != 4 || m[1][0] != 2 || m[3][0] != 4 || m[1][1] == m[1][1] {
		t.Fatalf("orders %v, margins %v; want four orders, margins 1, 2, 3, 4 and NaN", in.Orders[or], m)
	}
	if n := orderNotes(in); len(n) != 0 {
		t.Errorf("notes %q with every margin stored", n)
	}
	write(2, []int{0, 2}) // an old-format order among new ones
	if in.Orders, in.OrderMargins, err = readOrders(dir, rows, atts, cfg); err != nil {
		t.Fatal(err)
	}
	if len(in.Orders[or]) != 4 || in.OrderMargins[or] != nil {
		t.Fatalf("orders %v, margins %v; want the choices and no margins", in.Orders[or], in.OrderMargins[or])
	}
	if n := orderNotes(in); len(n) != 1 || !strings.Contains(n[0], "margin condition is read on the original order") {
		t.Errorf("notes %q; want one saying the margins fall back to the original order", n)
	}
}
