package predictions

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

var update = flag.Bool("update", false, "rewrite testdata/MVBench_results.xlsx with excelize")

// The fixtures follow each tool's own layout:
//
// lmms-eval (lmms_eval/evaluator.py and loggers/evaluation_tracker.py, run
// with --log_samples) writes samples_<task>_<ISO time>.jsonl, one object
// per document: doc_id, doc (the dataset record untouched: Video-MME's
// question_id, videoID, task_type, question, options "A. ..." and answer
// letter; NExT-QA's qid, video, type, a0..a4 and answer index), target
// (doc_to_target), arguments, resps (raw replies), filtered_resps (after the
// task's filters: the reply text for generation tasks, one
// [log-likelihood, is-greedy] pair per option for log-likelihood
// multiple-choice tasks), doc_hash, prompt_hash, target_hash, and the
// task's metric fields (videomme_perception_score, acc).
//
// VLMEvalKit (vlmeval/inference_video.py, then the dataset's evaluate)
// stores a model's answers as <model>_<dataset>.xlsx: the dataset's TSV
// columns (index, video, question, candidates as a Python list literal or
// A, B, ... columns, answer, task_type or category, ...) plus prediction,
// the raw reply. Its image MCQ files (MMBench and the like) carry index,
// question, hint, A..D, answer, category. The same tables are read as .tsv
// and .csv.

// mvbenchTable is the VLMEvalKit MVBench result table the .xlsx fixture
// holds: candidates as pandas writes a list column, the answer as text, a
// second row for item mv-1 with the candidates rotated (VLMEvalKit's
// circular evaluation), and a reply naming nothing.
var mvbenchTable = [][]string{
	{"index", "video", "question", "candidates", "answer", "task_type", "prediction"},
	{"0", "166583.webm", "What is the action performed by the person in the video?", "['Not sure', 'Scattering something down', 'Piling something up']", "Piling something up", "Action Sequence", "(C) Piling something up"},
	{"1", "ZS9XR.mp4", "What happened after the person took the food?", "['Ate the medicine.', 'Tidied up the blanket.', 'Put down the cup/glass/bottle.', 'Took the box.']", "Ate the medicine.", "Action Sequence", "Best option: (A)"},
	{"1000001", "ZS9XR.mp4", "What happened after the person took the food?", "['Took the box.', 'Ate the medicine.', 'Tidied up the blanket.', 'Put down the cup/glass/bottle.']", "Ate the medicine.", "Action Sequence", "B"},
	{"2", "ZS9XR.mp4", "What is the person holding?", "[\"A cup.\", \"A book.\", \"A phone.\"]", "A book.", "Object Existence", "Sorry, I cannot see the video."},
}

func writeXLSX(path string, rows [][]string) error {
	f := excelize.NewFile()
	defer f.Close()
	for r, row := range rows {
		for c, v := range row {
			cell, err := excelize.CoordinatesToCellName(c+1, r+1)
			if err != nil {
				return err
			}
			if err := f.SetCellValue("Sheet1", cell, v); err != nil {
				return err
			}
		}
	}
	return f.SaveAs(path)
}

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		if err := writeXLSX("testdata/MVBench_results.xlsx", mvbenchTable); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

func testItems(t *testing.T) []*harness.Item {
	t.Helper()
	items, err := harness.ReadFiles(context.Background(), []string{"testdata/items.jsonl"}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestLoad(t *testing.T) {
	t.Parallel()
	its := testItems(t)
	tests := []struct {
		file   string
		format Format
		want   map[string]int // item key -> option
		report string         // the counts of Report.String
	}{
		{"samples_videomme_2024-06-20T10-11-12.123456.jsonl", LMMSEval,
			map[string]int{"Video-MME\x00001-1": 2, "Video-MME\x00001-2": 1, "Video-MME\x00001-3": -1},
			"4 rows, 2 matched (2 by id, 0 by question text and options); replies read by letter 2; 1 unmatched: testdata/samples_videomme_2024-06-20T10-11-12.123456.jsonl:4; 1 unparsed (no option named: counted wrong): testdata/samples_videomme_2024-06-20T10-11-12.123456.jsonl:3"},
		{"samples_nextqa_mc_test_2024-06-20T11-00-00.000001.jsonl", LMMSEval,
			map[string]int{"NExT-QA\x004010069381_6": 2, "NExT-QA\x004882821564_1": 2},
			"2 rows, 2 matched (0 by id, 2 by question text and options); replies read by index 2"},
		{"Video-MME_results.tsv", VLMEvalKit,
			map[string]int{"Video-MME\x00001-1": 2, "Video-MME\x00001-2": 0, "Video-MME\x00001-3": 3},
			"3 rows, 3 matched (3 by id, 0 by question text and options); replies read by answer-is 1, letter 2"},
		{"MMBench_style_results.csv", VLMEvalKit,
			map[string]int{"MVBench\x00mv-2": 1, "MVBench\x00mv-0": 2},
			"3 rows, 2 matched (0 by id, 2 by question text and options); replies read by letter 1, option-text 1; 1 unmatched: testdata/MMBench_style_results.csv:4; 1 items of those benchmarks have no answer"},
		{"MVBench_results.xlsx", VLMEvalKit,
			map[string]int{"MVBench\x00mv-0": 2, "MVBench\x00mv-1": 0, "MVBench\x00mv-2": -1},
			"4 rows, 2 matched (0 by id, 2 by question text and options); replies read by answer-is 1, letter 1; 1 repeated (item already answered; first kept): testdata/MVBench_results.xlsx: row 4; 1 unparsed (no option named: counted wrong): testdata/MVBench_results.xlsx: row 5"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			got, rep, err := Load(context.Background(), path, its, items.NoOptions())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Format != tt.format {
				t.Errorf("format %s, want %s", rep.Format, tt.format)
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("item %q: option %d, want %d", k, got[k], v)
				}
			}
			wantReport := path + " (" + string(tt.format) + "): " + tt.report
			if rep.String() != wantReport {
				t.Errorf("report\n%s\nwant\n%s", rep, wantReport)
			}
		})
	}
}

func TestReadKeepsGoldAndItemFields(t *testing.T) {
	t.Parallel()
	rows, _, err := Read(context.Background(), "testdata/samples_nextqa_mc_test_2024-06-20T11-00-00.000001.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.ID != "6" || r.Benchmark != "nextqa_mc_test" || r.Video != "4010069381" || r.Task != "CH" || r.GoldIndex != 0 || len(r.Options) != 5 || r.Choice != 2 {
		t.Errorf("row %+v", r)
	}
	rows, _, err = Read(context.Background(), "testdata/MVBench_results.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[3]; r.ID != "2" || r.Gold != "A book." || !slices.Equal(r.Options, []string{"A cup.", "A book.", "A phone."}) || r.Source != "testdata/MVBench_results.xlsx: row 5" || r.Reply == "" {
		t.Errorf("xlsx row %+v", r)
	}
}

func TestReadRefusesBadFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string
		reason           error
	}{
		{"a project line without pred", write("a.jsonl", `{"id": "x", "benchmark": "B"}`+"\n"), "a.jsonl:1: field pred: missing field", harness.ErrMissingField},
		{"a fractional pred", write("b.jsonl", `{"id": "x", "benchmark": "B", "pred": 1.5}`+"\n"), "b.jsonl:1: field pred: wrong type: 1.5 is not an integer", harness.ErrFieldType},
		{"a pred of 2^64-1", write("h.jsonl", `{"id": "x", "benchmark": "B", "pred": 18446744073709551615}`+"\n"), "h.jsonl:1: field pred: answer out of range: 18446744073709551615 is not an index", harness.ErrAnswerRange},
		{"a broken line", write("c.jsonl", `{"id": "x", "pred": 1}`+"\n"+`{"id": `+"\n"), "c.jsonl:2: not a JSON object", harness.ErrSyntax},
		{"a sample whose doc is text", write("samples_t.jsonl", `{"doc_id": 0, "doc": "q", "filtered_resps": ["A"]}`+"\n"), "samples_t.jsonl:1: field doc: wrong type", harness.ErrFieldType},
		{"a table without a question column", write("d.tsv", "index\tA\tB\n0\tx\ty\n"), "d.tsv:1: field question: missing field", harness.ErrMissingField},
		{"a candidates cell that is not a list", write("e.csv", "index,question,candidates,prediction\n0,q,oops,A\n"), `e.csv:2: field candidates: wrong type: "oops" is not a list`, harness.ErrFieldType},
		{"an .xlsx that is not a workbook", write("f.xlsx", "not a zip"), "f.xlsx: not a JSON object: expected VLMEvalKit's result workbook (.xlsx), found text that is neither JSON nor a table", harness.ErrSyntax},
		{"a missing file", filepath.Join(dir, "nope.jsonl"), "nope.jsonl: no such file or directory", os.ErrNotExist},
		{"an empty file", write("g.jsonl", "\n\n"), "g.jsonl: unknown layout: the file is empty", ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Read(context.Background(), tt.path)
			var pe *harness.ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.reason) {
				t.Errorf("error %v; want a *ParseError containing %q and wrapping %v", err, tt.want, tt.reason)
			}
		})
	}
}

func TestLoadRefusesAFileForOtherItems(t *testing.T) {
	t.Parallel()
	its := testItems(t)[6:] // NExT-QA only
	_, rep, err := Load(context.Background(), "testdata/Video-MME_results.tsv", its, items.NoOptions())
	if !errors.Is(err, harness.ErrUnknownItem) || rep.Matched != 0 || len(rep.Unmatched) != 3 {
		t.Errorf("error %v, report %v; want no match refused", err, rep)
	}
}
