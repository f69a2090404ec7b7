package formats

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// TestEveryReaderTakesBOMAndCRLF: files saved on Windows, or by an editor
// that writes a byte-order mark, are the same files: each text layout's
// fixture, given a UTF-8 BOM and CRLF line ends, gives the same items
// (ids, videos, questions, options, golds), and the same drops, as the
// fixture itself. The line a row names stays its line.
func TestEveryReaderTakesBOMAndCRLF(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format items.Format
		files  map[string]string // name -> body, given in the order of names
		names  []string
	}{
		{"egoschema", EgoSchema(), map[string]string{"questions.json": egoQuestions, "subset_answers.json": egoAnswers}, []string{"questions.json", "subset_answers.json"}},
		{"longvideobench", LongVideoBench(), map[string]string{"lvb_val.json": longVideoBenchFixture}, []string{"lvb_val.json"}},
		{"mlvu", MLVU(), map[string]string{"1_plotQA.json": mlvuPlotQA}, []string{"1_plotQA.json"}},
		{"mvbench", MVBench(), map[string]string{"action_sequence.json": mvbenchActionSequence}, []string{"action_sequence.json"}},
		{"nextgqa", NExTGQA(), map[string]string{"val.csv": nextGQATable, "gsub_val.json": nextGQASpansFile}, []string{"val.csv", "gsub_val.json"}},
		{"nextqa", NExTQA(), map[string]string{"val.csv": nextqaHeader + "4010069381,369,640,480,how do the two man play the instrument,2,6,CH,roll the handle,tap their feet,strum the string,hit with sticks,pat with hand\n"}, []string{"val.csv"}},
		{"perceptiontest", PerceptionTest(), map[string]string{"mc_question_valid.json": perceptionTestFixture}, []string{"mc_question_valid.json"}},
		{"star", STAR(), map[string]string{"STAR_val.json": starFixture}, []string{"STAR_val.json"}},
		{"tempcompass", TempCompass(), map[string]string{"multi-choice.json": tempCompassMultiChoiceFixture}, []string{"multi-choice.json"}},
		{"tvbench", TVBench(), map[string]string{"object_count.json": tvbenchObjectCount}, []string{"object_count.json"}},
		{"videomme", VideoMME(), map[string]string{"videomme.json": videommeFlatJSON}, []string{"videomme.json"}},
		{"vlmevalkit", VLMEvalKit(), map[string]string{"MVBench.tsv": vlmMVBenchTSV}, []string{"MVBench.tsv"}},
		{"vlmevalkit json", VLMEvalKit(), map[string]string{"Qwen_MVBench.json": "[\n    {\n        \"index\": 0,\n        \"video\": \"v1.mp4\",\n        \"question\": \"What falls?\",\n        \"candidates\": \"['a cup', 'a pen']\",\n        \"answer\": \"a pen\",\n        \"prediction\": NaN\n    }\n]\n"}, []string{"Qwen_MVBench.json"}},
		{"lmms-eval", LMMSEval(), map[string]string{"20251020_080910_samples_videomme.jsonl": lmmsV04(t)}, []string{"20251020_080910_samples_videomme.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func(mangle func(string) string) ([]string, []string) {
				dir := t.TempDir()
				var paths []string
				for _, n := range tc.names {
					paths = append(paths, writeFile(t, dir, n, mangle(tc.files[n])))
				}
				res, err := readAnno(t, tc.format, paths...)
				if err != nil {
					t.Fatal(err)
				}
				var rows, drops []string
				for _, r := range res.Rows {
					rows = append(rows, strings.Join([]string{r.ID, r.Video, r.Question, strings.Join(r.Options, "|"), r.Gold, strings.TrimPrefix(r.Source, dir)}, "\x1f"))
				}
				for _, d := range res.Dropped {
					drops = append(drops, d.ID+"\x1f"+d.Reason+"\x1f"+strings.TrimPrefix(d.Source, dir))
				}
				return rows, drops
			}
			plainRows, plainDrops := read(func(s string) string { return s })
			if len(plainRows) == 0 {
				t.Fatal("the fixture gives no rows")
			}
			rows, drops := read(func(s string) string { return "\ufeff" + strings.ReplaceAll(s, "\n", "\r\n") })
			if !reflect.DeepEqual(rows, plainRows) || !reflect.DeepEqual(drops, plainDrops) {
				t.Errorf("with a BOM and CRLF:\n rows %q\ndrops %q\nwant\n rows %q\ndrops %q", rows, drops, plainRows, plainDrops)
			}
		})
	}
}
