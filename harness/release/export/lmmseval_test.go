package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// taskConfigKeys are the fields of lmms-eval's TaskConfig
// (lmms_eval/api/task.py, class TaskConfig, at EvolvingLMMs-Lab/lmms-eval
// 75571cfe, v0.7.2 and after), plus include, which lmms_eval/utils.py's
// load_yaml_config resolves before a TaskConfig is made. A task YAML key
// outside them is a TypeError when lmms-eval builds the task.
var taskConfigKeys = []string{
	"task", "task_alias", "tag", "group", "group_alias",
	"dataset_path", "dataset_name", "dataset_kwargs", "training_split", "validation_split", "test_split", "fewshot_split", "full_docs",
	"process_results_use_image", "process_docs", "doc_to_visual", "doc_to_text", "doc_to_target", "doc_to_choice", "doc_to_messages",
	"process_results", "use_prompt", "description", "target_delimiter", "fewshot_delimiter", "fewshot_config",
	"num_fewshot", "metric_list", "output_type", "generation_kwargs", "repeats", "filter_list", "should_decontaminate",
	"doc_to_decontamination_query", "cluster_key", "score_key", "metadata",
	"lmms_eval_specific_kwargs", "model_specific_generation_kwargs", "model_specific_target_kwargs", "reasoning_tags", "auto_strip_thinking",
	"include",
}

// groupConfigKeys are the fields of GroupConfig (lmms_eval/api/group.py);
// lmms_eval/tasks/__init__.py takes a YAML whose task is a list for a group.
var groupConfigKeys = []string{"group", "group_alias", "task", "aggregate_metric_list", "metadata"}

// metricKeys are what ConfigurableTask reads of a metric_list entry by
// name (the rest would be passed to the metric as arguments).
var metricKeys = []string{"metric", "aggregation", "higher_is_better"}

// outputTypes are lmms-eval's request types (lmms_eval/api/instance.py).
var outputTypes = []string{"loglikelihood", "generate_until", "generate_until_multi_round", "generate_until_agentic"}

func exportTo(t *testing.T, dir string) {
	t.Helper()
	if err := LMMSEval(context.Background(), testRelease(t), dir); err != nil {
		t.Fatal(err)
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func TestLMMSEvalDirectory(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	exportTo(t, a)
	exportTo(t, b)
	exportTo(t, b) // again into the same directory: its own files are no obstacle
	got, again := readDir(t, a), readDir(t, b)
	p := "vidscreen_0123456789abcdef"
	want := []string{"README.md", TemplateFile, DatasetFile, p + ".yaml", p + "_1fps.yaml", p + "_32frame.yaml",
		p + "_64frame.yaml", p + "_8frame.yaml", p + "_blind.yaml", p + "_video.yaml", UtilsFile}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	for n, data := range got {
		if !bytes.Equal(data, again[n]) {
			t.Errorf("%s differs between two exports of one release", n)
		}
	}
	if lines := bytes.Count(got[DatasetFile], []byte("\n")); lines != len(testRelease(t).Items) {
		t.Errorf("%s has %d lines, want one per item", DatasetFile, lines)
	}
}

func TestLMMSEvalRefusesAnotherExportsTasks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stale := filepath.Join(dir, "vidscreen_ffffffffffffffff_video.yaml")
	if err := os.WriteFile(stale, []byte("task: vidscreen_ffffffffffffffff_video\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := LMMSEval(context.Background(), testRelease(t), dir)
	if err == nil || !strings.Contains(err.Error(), "vidscreen_ffffffffffffffff_video.yaml") {
		t.Fatalf("err %v, want the stale task file named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DatasetFile)); !os.IsNotExist(err) {
		t.Errorf("%s written although the export was refused", DatasetFile)
	}
}

// mapping returns the keys and values of a YAML mapping node.
func mapping(t *testing.T, n *yaml.Node, where string) ([]string, map[string]*yaml.Node) {
	t.Helper()
	if n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		t.Fatalf("%s: not a mapping", where)
	}
	var keys []string
	vals := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
		vals[n.Content[i].Value] = n.Content[i+1]
	}
	return keys, vals
}

func TestLMMSEvalYAMLKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exportTo(t, dir)
	files := readDir(t, dir)
	defs := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^def (\w+)\(`).FindAllStringSubmatch(string(files[UtilsFile]), -1) {
		defs[m[1]] = true
	}
	p := "vidscreen_0123456789abcdef"
	var tasksSeen []string
	for name, data := range files {
		if name != TemplateFile && !strings.HasSuffix(name, ".yaml") {
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		keys, vals := mapping(t, &doc, name)
		allowed := taskConfigKeys
		if name == p+".yaml" {
			allowed = groupConfigKeys
		}
		for _, k := range keys {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s: key %s is not a field lmms-eval reads", name, k)
			}
		}
		// Every !function names a function of utils.py.
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Tag == "!function" {
				fn, ok := strings.CutPrefix(n.Value, "utils.")
				if !ok || !defs[fn] {
					t.Errorf("%s: !function %s is not defined in utils.py", name, n.Value)
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(&doc)
		switch {
		case name == p+".yaml":
			if vals["group"].Value != p || vals["task"].Kind != yaml.SequenceNode {
				t.Errorf("%s: group %q, task not a list", name, vals["group"].Value)
			}
			for _, c := range vals["task"].Content {
				if _, ok := files[c.Value+".yaml"]; !ok {
					t.Errorf("%s: task %s has no YAML file", name, c.Value)
				}
			}
		case name == TemplateFile:
			if vals["dataset_path"].Value != "json" {
				t.Errorf("dataset_path %q, want the json builder", vals["dataset_path"].Value)
			}
			_, kw := mapping(t, vals["dataset_kwargs"], "dataset_kwargs")
			_, df := mapping(t, kw["data_files"], "data_files")
			if df["test"] == nil || df["test"].Value != DatasetFile || vals["test_split"].Value != "test" {
				t.Errorf("data_files %v, test_split %q: want the test split read from %s", df, vals["test_split"].Value, DatasetFile)
			}
			if !slices.Contains(outputTypes, vals["output_type"].Value) {
				t.Errorf("output_type %q", vals["output_type"].Value)
			}
			var metricNames []string
			for _, m := range vals["metric_list"].Content {
				mk, mv := mapping(t, m, "metric_list")
				for _, k := range mk {
					if !slices.Contains(metricKeys, k) {
						t.Errorf("metric_list: key %s", k)
					}
				}
				metricNames = append(metricNames, mv["metric"].Value)
			}
			want := []string{"accuracy", "accuracy_perception", "accuracy_reasoning", "accuracy_temporal"}
			if !slices.Equal(metricNames, want) {
				t.Errorf("metrics %v, want %v", metricNames, want)
			}
		default:
			tasksSeen = append(tasksSeen, vals["task"].Value)
			if vals["include"].Value != TemplateFile || vals["task"].Value+".yaml" != name {
				t.Errorf("%s: task %q, include %q", name, vals["task"].Value, vals["include"].Value)
			}
			_, kw := mapping(t, vals["lmms_eval_specific_kwargs"], "lmms_eval_specific_kwargs")
			_, def := mapping(t, kw["default"], "default")
			if def["post_prompt"].Value != PostPrompt || def["intro"].Value == "" {
				t.Errorf("%s: kwargs %v", name, def)
			}
			if strings.HasSuffix(name, "_blind.yaml") != (vals["process_docs"] != nil) {
				t.Errorf("%s: process_docs %v: only the blind task expands its documents", name, vals["process_docs"])
			}
		}
	}
	if len(tasksSeen) != 6 {
		t.Errorf("tasks %v, want six", tasksSeen)
	}
}
