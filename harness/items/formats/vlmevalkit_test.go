package formats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// VLMEvalKit's layouts as its code writes them (vlmeval/smp/file.py dump,
// get_pred_file_path): a model's results are
// outputs/<model>/<model>_<dataset>.xlsx by default, .tsv with
// PRED_FORMAT=tsv, and with PRED_FORMAT=json a JSON array of the rows
// (DataFrame.to_dict('records'), json.dump with indent 4, so a missing
// cell is NaN). The video benchmarks' TSVs carry index, video, question,
// candidates (a Python list string, Video-MME's with "A. " prefixes) or
// A, B, ... columns, answer and, in results, prediction.

// writeSheet writes rows as the first sheet of an .xlsx workbook, as pandas'
// to_excel does: every cell a string, a None cell left empty.
func writeSheet(t *testing.T, path string, rows [][]string) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for r, row := range rows {
		for c, v := range row {
			if v == "" {
				continue
			}
			cell, err := excelize.CoordinatesToCellName(c+1, r+1)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.SetCellValue("Sheet1", cell, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestVLMEvalKitLayouts(t *testing.T) {
	dir := t.TempDir()
	header := []string{"index", "video", "question", "A", "B", "C", "D", "answer", "category", "prediction"}
	xlsx := writeSheet(t, filepath.Join(dir, "outputs", "Qwen2-VL-7B", "Qwen2-VL-7B_MVBench.xlsx"), [][]string{
		header,
		{"0", "v1.mp4", "What falls?", "a cup", "", "a book", "a pen", "C", "Action", "C"},
		{"1", "v2.mp4", "Who runs?", "the man", "the dog", "", "", "B", "Action", "The answer is B."},
	})
	json := writeFile(t, dir, "outputs/LLaVA-Video/LLaVA-Video_MVBench.json", `[
    {
        "index": 0,
        "video": "v1.mp4",
        "question": "What falls?",
        "candidates": "['a cup', 'a pen', 'a book']",
        "answer": "a book",
        "task_type": "Action",
        "duration": NaN,
        "prediction": "(C) a book"
    }
]
`)
	tsv := writeFile(t, dir, "Video-MME.tsv", "index\tvideo\tduration\tquestion_id\ttask_type\tquestion\tcandidates\tanswer\n"+
		"0\tfFjv93ACGo8\tshort\t001-1\tCounting Problem\tHow many?\t\"['A. One.', 'B. Two.', 'C. (b)(a)(d)(c).']\"\tB\n")
	for _, tt := range []struct {
		name, path, bench string
		ids               []string
		options           [][]string
		golds, replies    []string
	}{
		{"an .xlsx with a blank option cell", xlsx, "MVBench", []string{"0", "1"},
			[][]string{{"a cup", "", "a book", "a pen"}, {"the man", "the dog"}}, []string{"C", "B"}, []string{"C", "The answer is B."}},
		{"PRED_FORMAT=json, NaN for a missing cell", json, "MVBench", []string{"0"},
			[][]string{{"a cup", "a pen", "a book"}}, []string{"a book"}, []string{"(C) a book"}},
		{"a dataset TSV with a candidates list", tsv, "Video-MME", []string{"001-1"},
			[][]string{{"A. One.", "B. Two.", "C. (b)(a)(d)(c)."}}, []string{"B"}, []string{""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !VLMEvalKit().Detect(tt.path, mustHead(t, tt.path)) {
				t.Errorf("Detect refuses %s", tt.path)
			}
			rows, err := ReadVLMEvalKit(context.Background(), tt.path)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rows)
			if len(rows) != len(tt.ids) {
				t.Fatalf("%d rows, want %d", len(rows), len(tt.ids))
			}
			for i, r := range rows {
				if r.ID != tt.ids[i] || r.Benchmark != tt.bench || !slices.Equal(r.Options, tt.options[i]) || r.Gold != tt.golds[i] || r.Reply != tt.replies[i] {
					t.Errorf("row %d: id %q, benchmark %q, options %q, gold %q, reply %q; want %q, %q, %q, %q, %q",
						i, r.ID, r.Benchmark, r.Options, r.Gold, r.Reply, tt.ids[i], tt.bench, tt.options[i], tt.golds[i], tt.replies[i])
				}
			}
		})
	}
}

// TestVLMEvalKitBlankOptionKeepsPositions: pandas writes a None option as
// an empty cell; it stays an (empty, flagged) option in its place, so that
// the letters after it keep naming the same options.
func TestVLMEvalKitBlankOptionKeepsPositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := writeFile(t, dir, "m_MVBench.tsv", "index\tvideo\tquestion\tA\tB\tC\tD\tanswer\tprediction\n0\tv.mp4\tWhat falls?\ta cup\t\ta book\ta pen\tD\tD\n")
	rows, err := ReadVLMEvalKit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if !slices.Equal(r.Options, []string{"a cup", "", "a book", "a pen"}) {
		t.Fatalf("options %q: the blank B must stay in place", r.Options)
	}
	if i, _, err := items.Reply(r.Reply, r.Options, -1); err != nil || i != 3 {
		t.Errorf("reply D reads as %d, %v; want option 3", i, err)
	}
	if g, _, err := items.Gold(r.Gold, r.Options, -1); err != nil || g != 3 {
		t.Errorf("gold D reads as %d, %v; want 3", g, err)
	}
}

func TestDatasetName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"outputs/Qwen2-VL-7B/Qwen2-VL-7B_Video-MME.xlsx":         "Video-MME",
		"outputs/LLaVA-Video-7B/LLaVA-Video-7B_Video-MME.xlsx":   "Video-MME",
		"outputs/Qwen2-VL-7B/Qwen2-VL-7B_MVBench_MP4_8frame.tsv": "MVBench_MP4",
		// The sampling is not the dataset (video_dataset_config.py).
		"outputs/Qwen2-VL-7B/Qwen2-VL-7B_Video-MME_0.5fps_subs.xlsx":            "Video-MME",
		"outputs/Qwen2-VL-7B/Qwen2-VL-7B_LongVideoBench_64frame.json":           "LongVideoBench",
		"outputs/Qwen2-VL-7B/Qwen2-VL-7B_Video-MME-v2_64frame_resize_subs.xlsx": "Video-MME-v2",
		"outputs/X/X_moviechat1k_global_8frame_limit0.01.xlsx":                  "moviechat1k_global",
		"outputs/X/X_8frame.xlsx":                                               "8frame",
		"results/Video-MME.tsv":                                                 "Video-MME",
		"Qwen2-VL-7B_Video-MME.xlsx":                                            "Qwen2-VL-7B_Video-MME",
		// run.py's run folders (build_eval_id), today's and the legacy one.
		"outputs/Qwen2-VL-7B/T20250612-093015/Qwen2-VL-7B_Video-MME_8frame.xlsx":  "Video-MME",
		"outputs/Qwen2-VL-7B/T20241215_G1a2b3c4d/Qwen2-VL-7B_MVBench_8frame.json": "MVBench",
		"outputs/Qwen2-VL-7B/T2025/Qwen2-VL-7B_Video-MME.xlsx":                    "Qwen2-VL-7B_Video-MME",
	} {
		if got := DatasetName(in); got != want {
			t.Errorf("DatasetName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVLMEvalKitRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, path, want string
		reason           error
	}{
		{"a missing .xlsx", filepath.Join(dir, "m_X.xlsx"), "m_X.xlsx: no such file or directory", os.ErrNotExist},
		{"an .xlsx that is not a workbook", writeFile(t, dir, "m_Y.xlsx", `{"id": "x"}`+"\n"), "expected VLMEvalKit's result workbook (.xlsx), found JSON Lines (one object per line)", harness.ErrSyntax},
		{"a pretty-printed object as .json", writeFile(t, dir, "m_Z.json", "{\n    \"index\": 0\n}\n"), "expected VLMEvalKit's PRED_FORMAT=json results (a JSON array of row objects), found a pretty-printed JSON object", harness.ErrSyntax},
		{"an lmms-eval file", writeFile(t, dir, "s.tsv", "doc_id\ttarget\tfiltered_resps\n0\tA\tA\n"), "this is an lmms-eval samples file, not a VLMEvalKit table: use `vidscreen import lmms-eval`", harness.ErrNotAFile},
		{"a candidates cell that is no list", writeFile(t, dir, "e.csv", "index,video,question,candidates,answer\n0,v,q,oops,A\n"), `e.csv:2: field candidates: wrong type: "oops" is not a list`, harness.ErrFieldType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadVLMEvalKit(context.Background(), tt.path)
			var pe *harness.ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.reason) {
				t.Errorf("error %v; want a *ParseError containing %q and wrapping %v", err, tt.want, tt.reason)
			}
		})
	}
}

func mustHead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := items.Head(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzReadDelimited feeds the VLMEvalKit TSV/CSV reader arbitrary bytes:
// no panic, and what it accepts keeps the rows' promises.
func FuzzReadDelimited(f *testing.F) {
	f.Add([]byte("index\tvideo\tquestion\tA\tB\tanswer\tprediction\n0\tv.mp4\tq?\tx\t\tB\tB\n"))
	f.Add([]byte("index\tquestion\tcandidates\tanswer\n0\tq\t\"['A. x', 'B. y']\"\tA\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadDelimited(context.Background(), strings.NewReader(string(data)), "fuzz.tsv")
		if err == nil {
			checkRows(t, rows)
		}
	})
}

// FuzzReadVLMEvalKitJSON feeds the PRED_FORMAT=json reader arbitrary bytes.
func FuzzReadVLMEvalKitJSON(f *testing.F) {
	f.Add([]byte(`[{"index": 0, "question": "q", "A": "x", "B": "y", "answer": "A", "prediction": NaN}]`))
	f.Add([]byte(`[{"index": 1, "question": "q", "candidates": ["x", "y"], "answer": "y"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "m_D.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readJSONRecords(context.Background(), p)
		if err == nil {
			checkRows(t, rows)
		}
	})
}
