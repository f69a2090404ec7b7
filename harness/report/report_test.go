package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/models/letters"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ptr[T any](v T) *T { return &v }

// fixture is a small report over real items (testdata/items.jsonl: three
// Social-IQ 2.0 items and one VideoHallucer pair) with hand-set figures, so
// that the golden files test the rendering alone.
func fixture(t *testing.T) *Report {
	t.Helper()
	f, err := os.Open("testdata/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := harness.NewJSONLReader(f, "items.jsonl").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	atts := []Attacker{{"option-artifact", harness.LevelOption}, {"siblings", harness.LevelPool}}
	pool := &metrics.LevelResult{Eps: 0.435, Attacker: "siblings", Significant: true}
	cards := []metrics.Card{
		{
			Benchmark: "Social-IQ-2.0", N: 3, Chance: 0.25, Significance: 0.5815,
			ReferenceAccuracy: ptr(0.6667), ReferenceN: 3,
			Levels:       metrics.Levels{Option: &metrics.LevelResult{Eps: 0.1373, Attacker: "option-artifact", SignificantUncorrected: true, PValue: 0.03}, Pool: &metrics.LevelResult{Eps: 0.1373, Attacker: "option-artifact", SignificantUncorrected: true, PValue: 0.03}},
			LevelsNotRun: map[string]string{"frame": "3 videos failed: missing 3"}, Failures: map[string]int{"missing": 3},
			Attackers: []metrics.AttackerResult{
				{Name: "option-artifact", Level: harness.LevelOption, Accuracy: 0.3873, Margin: 0.1373, N: 3, CILow: 0.3, CIHigh: 0.47, Chance: 0.25, Orders: 5, LearnsFromPool: true, LearningCurve: []float64{0.25, 0.3, 0.35, 0.38, 0.39}, ALC: ptr(0.12), PValue: 0.03, Answered: 3, SignificantUncorrected: true},
				{Name: "siblings", Level: harness.LevelPool, Accuracy: 0.25, Margin: 0, N: 3, CILow: 0.2, CIHigh: 0.3, Chance: 0.25, Orders: 5, LearnsFromPool: true, AbstainShare: 1, PValue: 1},
			},
			BreakingLevel:   map[string]*string{"0.03": nil, "0.05": nil, "0.08": ptr("option")},
			VideoDependence: ptr(0.28), VideoDependenceReader: "blind-reader", Residual: ptr(0.2794),
			NearDuplicateShare: ptr(0.0), CrossBenchmarkDuplicates: ptr(0), DistinctClusters: ptr(3), SharedVideoItems: ptr(0),
			WeightedReferenceAccuracy: ptr(0.6667), ReferenceCoverage: ptr(1.0), Embedder: "lexical-w12-c34-d512 (IDF fitted on each benchmark's own texts)",
			Tasks: []metrics.Breakdown{
				{Name: "", N: 2, Chance: 0.25, Significance: 0.7122, Levels: metrics.Levels{Option: &metrics.LevelResult{Eps: 0.25, Attacker: "option-artifact"}}},
				{Name: "why", N: 1, Chance: 0.25, Significance: 1.0072, Levels: metrics.Levels{Option: &metrics.LevelResult{Eps: -0.25, Attacker: "option-artifact"}}},
			},
			DataQuality: map[string]int{"letter_prefix": 1},
		},
		{
			Benchmark: "VideoHallucer", N: 2, Chance: 0.5, Significance: 0.8224,
			Sample:      &metrics.Sample{Of: 1952, Method: "2 of 1952 items, stratified by task, then group"},
			Unavailable: map[string]string{"reference_accuracy": "needs a reference model's answers (--reference)"},
			Levels:      metrics.Levels{Option: &metrics.LevelResult{Eps: -0.028, Attacker: "option-artifact"}, Pool: pool},
			Attackers: []metrics.AttackerResult{
				{Name: "option-artifact", Level: harness.LevelOption, Accuracy: 0.472, Margin: -0.028, N: 2, CILow: 0.4, CIHigh: 0.55, Chance: 0.5, Orders: 5, LearnsFromPool: true, PValue: 0.75, Answered: 2},
				{Name: "siblings", Level: harness.LevelPool, Accuracy: 0.935, Margin: 0.435, N: 2, CILow: 0.9, CIHigh: 0.97, Chance: 0.5, Significant: true, SignificantUncorrected: true, PValue: 0.00390625, Answered: 2, Orders: 5, LearnsFromPool: true, SolvedShare: 0.5, LearningCurve: []float64{0.5, 0.8, 0.93}},
			},
			ALCAttacker: "siblings", LearningCurve: []float64{0.5, 0.8, 0.93}, ALC: ptr(0.5),
			NearDuplicateShare: ptr(1.0), CrossBenchmarkDuplicates: ptr(0), DistinctClusters: ptr(1), SharedVideoItems: ptr(0),
		},
	}
	var scores []metrics.ItemScore
	for i, it := range items {
		for _, a := range atts {
			right := i == 3 || i == 4
			scores = append(scores, metrics.ItemScore{Item: i, Attacker: a.Name, Level: a.Level, Scored: i != 2, Choice: i % len(it.Options), Margin: float64(i) - 1.5,
				Correct: right, Solved: right, Abstained: i == 0, Floored: i == 1, Variants: 5})
		}
	}
	dup := &dups.Result{Threshold: 0.9, Pairs: []dups.Pair{{A: 3, B: 4, Sim: 0.9375}}, Cluster: []int32{0, 1, 2, 3, 3}, ClusterSize: []int32{1, 1, 1, 2, 2}}
	config := []byte(`{"format": "vidscreen-run/2", "items": [{"name": "items.jsonl", "sha256": "00", "size": 1}], "seed": 1}`)
	return &Report{Version: "0.0.0-test", Config: config, Items: items, Attackers: atts, Cards: cards, Scores: scores, Duplicates: dup}
}

func TestGoldenFiles(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	for _, tt := range []struct {
		golden string
		write  func(*bytes.Buffer) error
	}{
		{"cards.json", func(b *bytes.Buffer) error { return r.WriteCardsJSON(b) }},
		{"cards.md", func(b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"index.html", func(b *bytes.Buffer) error { return r.WriteHTML(b) }},
		{"summary.txt", func(b *bytes.Buffer) error { return WriteSummary(b, r.Cards) }},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			var got bytes.Buffer
			if err := tt.write(&got); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tt.golden)
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from the golden file; if the change is intended, run go test ./harness/report -update and review the diff", tt.golden)
			}
		})
	}
}

// TestCardsJSONHasTheFieldsOfTheIssue: cards.json is an object naming the
// version and the configuration, then the cards (it was a bare list).
func TestCardsJSONHasTheFieldsOfTheIssue(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixture(t).WriteCardsJSON(&b); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vidscreen string           `json:"vidscreen"`
		Config    map[string]any   `json:"config"`
		Cards     []map[string]any `json:"cards"`
	}
	if err := json.Unmarshal(b.Bytes(), &file); err != nil {
		t.Fatal(err)
	}
	if file.Vidscreen != "0.0.0-test" || file.Config["seed"] != 1.0 || len(file.Cards) != 2 {
		t.Fatalf("cards.json head: version %q, config %v, %d cards", file.Vidscreen, file.Config, len(file.Cards))
	}
	cards := file.Cards
	for _, k := range []string{"benchmark", "n", "sample", "chance", "embedder", "reference_accuracy", "reference_coverage", "levels", "attackers", "breaking_level", "near_duplicate_share", "cross_benchmark_duplicates", "shared_video_items"} {
		if _, ok := cards[1][k]; !ok {
			t.Errorf("card lacks %q", k)
		}
	}
	if cards[1]["reference_accuracy"] != nil || cards[1]["breaking_level"] != nil {
		t.Errorf("without a reference, reference_accuracy and breaking_level must be null: %v %v", cards[1]["reference_accuracy"], cards[1]["breaking_level"])
	}
	lv := cards[1]["levels"].(map[string]any)
	for _, k := range []string{"option", "text", "pool", "frame", "order"} {
		if _, ok := lv[k]; !ok {
			t.Errorf("levels lacks %q", k)
		}
	}
	if _, ok := cards[0]["tasks"]; !ok {
		t.Error("card lacks its per-task breakdown")
	}
	for _, bad := range []string{"time", "date", "host", "seconds"} {
		if strings.Contains(b.String(), `"`+bad) {
			t.Errorf("cards.json holds a %q field: timings and hosts go to run.json", bad)
		}
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixture(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "src=", "<link", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must need no external asset", bad)
		}
	}
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("page has %d charts, want 4 (a level profile per benchmark, learning curves for both)", n)
	}
	if !strings.Contains(page, "s* − c") {
		t.Error("the level profile of the benchmark with a reference lacks its s* - c line")
	}
}

func TestItemsParquetReadsBack(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	var b bytes.Buffer
	if err := r.WriteItemsParquet(&b); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range f.Schema().Columns() {
		cols = append(cols, strings.Join(c, "."))
	}
	want := "id,benchmark,video,task,group,question,options.list.element,n_options,answer,dup_cluster,duration,failure,video_sha256,video_identity,duration_category," +
		"dq_empty_option,dq_repeated_option,dq_letter_prefix,dq_meta_option," +
		"option_artifact_pred,option_artifact_scored,option_artifact_abstained,option_artifact_correct,option_artifact_margin,option_artifact_solved,option_artifact_floored," +
		"siblings_pred,siblings_scored,siblings_abstained,siblings_correct,siblings_margin,siblings_solved,siblings_floored"
	if strings.Join(cols, ",") != want {
		t.Errorf("columns\n %s\nwant\n %s", strings.Join(cols, ","), want)
	}
	type row struct {
		ID        string   `parquet:"id"`
		Bench     string   `parquet:"benchmark"`
		Question  string   `parquet:"question"`
		Options   []string `parquet:"options,list"`
		NOptions  int32    `parquet:"n_options"`
		Answer    int32    `parquet:"answer"`
		Cluster   int32    `parquet:"dup_cluster"`
		Pred      int32    `parquet:"siblings_pred"`
		Scored    bool     `parquet:"siblings_scored"`
		Abstained bool     `parquet:"siblings_abstained"`
		Correct   bool     `parquet:"siblings_correct"`
		Margin    float64  `parquet:"siblings_margin"`
		Solved    bool     `parquet:"siblings_solved"`
		Floored   bool     `parquet:"siblings_floored"`
	}
	rows, err := parquet.Read[row](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(r.Items) {
		t.Fatalf("%d rows for %d items", len(rows), len(r.Items))
	}
	for i, it := range r.Items {
		got := rows[i]
		if got.ID != it.ID || got.Bench != it.Benchmark || got.Question != it.Question || strings.Join(got.Options, "|") != strings.Join(it.Options, "|") ||
			int(got.NOptions) != len(it.Options) || int(got.Answer) != it.Answer || got.Cluster != r.Duplicates.Cluster[i] ||
			int(got.Pred) != i%len(it.Options) || got.Scored != (i != 2) || got.Abstained != (i == 0) || got.Correct != (i == 3 || i == 4) ||
			got.Margin != float64(i)-1.5 || got.Solved != (i == 3 || i == 4) || got.Floored != (i == 1) {
			t.Errorf("row %d = %+v", i, got)
		}
	}
}

// TestItemsParquetVideoHash: video_sha256 holds the hash the feature stage
// read where the video gave features, "" where it failed or was not read,
// and "" throughout a run without videos (kept where only a served
// reader's server failed: the video was read); video_identity holds the
// identity shared videos were counted by under the same rule.
func TestItemsParquetVideoHash(t *testing.T) {
	t.Parallel()
	type row struct {
		Hash     string `parquet:"video_sha256"`
		Identity string `parquet:"video_identity"`
	}
	r := fixture(t)
	n := len(r.Items)
	for _, tt := range []struct {
		name             string
		hashes, failures []string
		want             func(i int) string
	}{
		{"no videos", nil, nil, func(int) string { return "" }},
		{"item 1 failed (decoded: hashed), item 2 unread", func() []string {
			h := make([]string, n)
			for i := range h {
				h[i] = strings.Repeat(string(rune('a'+i)), 64)
			}
			h[2] = ""
			return h
		}(), func() []string { f := make([]string, n); f[1], f[2] = "corrupt", "missing"; return f }(),
			func(i int) string {
				if i == 1 || i == 2 {
					return ""
				}
				return strings.Repeat(string(rune('a'+i)), 64)
			}},
		// The server failed on items 0 and 3 (a reader's request, after its
		// retries): their videos were read, so their columns are filled as
		// a success's are.
		{"items 0 and 3 failed at the server", func() []string {
			h := make([]string, n)
			for i := range h {
				h[i] = strings.Repeat(string(rune('a'+i)), 64)
			}
			return h
		}(), func() []string {
			f := make([]string, n)
			f[0], f[3] = letters.FailureServer, letters.FailureServer
			return f
		}(),
			func(i int) string { return strings.Repeat(string(rune('a'+i)), 64) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r.VideoSHA256, r.Failures = tt.hashes, tt.failures
			r.VideoIdentity = nil
			if tt.hashes != nil {
				r.VideoIdentity = make([]string, n)
				for i, h := range tt.hashes {
					r.VideoIdentity[i] = "perceptual:sha256:" + h
				}
			}
			var b bytes.Buffer
			if err := r.WriteItemsParquet(&b); err != nil {
				t.Fatal(err)
			}
			rows, err := parquet.Read[row](bytes.NewReader(b.Bytes()), int64(b.Len()))
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range rows {
				if got.Hash != tt.want(i) {
					t.Errorf("row %d: video_sha256 %q, want %q", i, got.Hash, tt.want(i))
				}
				wantID := ""
				if tt.want(i) != "" {
					wantID = "perceptual:sha256:" + tt.want(i)
				}
				if got.Identity != wantID {
					t.Errorf("row %d: video_identity %q, want %q", i, got.Identity, wantID)
				}
			}
		})
	}
}

func TestDuplicatesParquetReadsBack(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	var b bytes.Buffer
	if err := r.WriteDuplicatesParquet(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[duplicateRow](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := duplicateRow{AID: r.Items[3].ID, ABenchmark: "VideoHallucer", AVideo: r.Items[3].Video, BID: r.Items[4].ID, BBenchmark: "VideoHallucer", BVideo: r.Items[4].Video, Similarity: 0.9375, Cluster: 3, ClusterSize: 2}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows = %+v, want [%+v]", rows, want)
	}
}

// TestParquetReadsBackWithPyArrow opens both tables with pyarrow when
// /usr/bin/python3 has it (Debian 12 does not package it); parquet-go's own
// reading is checked above either way.
func TestParquetReadsBackWithPyArrow(t *testing.T) {
	t.Parallel()
	if exec.Command("/usr/bin/python3", "-c", "import pyarrow").Run() != nil {
		t.Skip("pyarrow is not installed for /usr/bin/python3")
	}
	r := fixture(t)
	dir := t.TempDir()
	for name, write := range map[string]func(*bytes.Buffer) error{
		"items.parquet":      func(b *bytes.Buffer) error { return r.WriteItemsParquet(b) },
		"duplicates.parquet": func(b *bytes.Buffer) error { return r.WriteDuplicatesParquet(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b.Bytes(), 0o644)
		out, err := exec.Command("/usr/bin/python3", "-c", "import sys, pyarrow.parquet as pq; print(pq.read_table(sys.argv[1]).num_rows)", p).CombinedOutput()
		want := map[string]string{"items.parquet": "5", "duplicates.parquet": "1"}[name]
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("pyarrow on %s: %v, %s (want %s rows)", name, err, out, want)
		}
	}
}

// The summary fits the width it is given: wider than the table it prints
// every column; narrower, it leaves out the columns a reader can best spare,
// in order, says so, and never the eps columns.
func TestWriteSummaryFitsTheWidth(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	tests := []struct {
		width int
		left  string // the columns left out, as the note names them; "" for none
	}{
		{200, ""},
		{100, "near-dup"},
		{85, "near-dup, strongest attacker"},
		{40, "near-dup, strongest attacker, breaks@0.05, s*"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.width), func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSummaryWidth(&b, r.Cards, tt.width); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
			table := lines
			if tt.left != "" {
				note := lines[len(lines)-1]
				if want := "(left out to fit " + fmt.Sprint(tt.width) + " columns: " + tt.left + "; cards.md has every column)"; note != want {
					t.Errorf("note %q, want %q", note, want)
				}
				table = lines[:len(lines)-1]
			} else if strings.Contains(b.String(), "left out") {
				t.Errorf("a table that fits says columns were left out:\n%s", b.String())
			}
			if !strings.Contains(table[0], "eps option") || !strings.Contains(table[0], "eps pool") {
				t.Errorf("header %q lacks the eps columns", table[0])
			}
			for _, l := range table {
				if n := len([]rune(l)); n > tt.width && strings.Count(tt.left, ",") < 3 {
					t.Errorf("line of %d columns at width %d: %q", n, tt.width, l)
				}
			}
		})
	}
}
