package export

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A task is one of the release's lmms-eval tasks: how the model is shown
// an item.
type task struct {
	Suffix string // the task is <prefix>_<Suffix>
	// Says what the model is given, for the YAML's comment and README.md.
	Says   string
	Visual string // the utils.py function giving the visual input
	Intro  string // the prompt's first sentence
	// FPS and MaxFrames are the frame tasks' sampling (MaxFrames 0: no cap).
	FPS       float64
	MaxFrames int
	Blind     bool // one document per item and blind order
}

// PostPrompt ends every prompt.
const PostPrompt = "Answer with the option's letter from the given choices directly."

// tasks are the six ways the release is evaluated: the video file as the
// model wrapper samples it; frames at one per second, all of them up to
// 512 (beyond, 512 spread evenly) and capped at 64, 32 and 8; and no
// video at all, each item under BlindOrders seeded option orders, whose
// accuracy is what a model gets from the text alone (its gain is a video
// task's accuracy minus this one).
var tasks = []task{
	{Suffix: "video", Says: "the video file; the model wrapper samples its frames", Visual: "doc_to_visual",
		Intro: "You are given a video. Answer the question about it."},
	{Suffix: "1fps", Says: "one frame per second of the item's clip (at most 512, spread evenly beyond), as images", Visual: "doc_to_visual_frames",
		Intro: "You are given frames sampled from a video, in time order. Answer the question about the video.", FPS: 1, MaxFrames: 512},
	{Suffix: "64frame", Says: "one frame per second, at most 64 (spread evenly beyond), as images", Visual: "doc_to_visual_frames",
		Intro: "You are given frames sampled from a video, in time order. Answer the question about the video.", FPS: 1, MaxFrames: 64},
	{Suffix: "32frame", Says: "one frame per second, at most 32 (spread evenly beyond), as images", Visual: "doc_to_visual_frames",
		Intro: "You are given frames sampled from a video, in time order. Answer the question about the video.", FPS: 1, MaxFrames: 32},
	{Suffix: "8frame", Says: "one frame per second, at most 8 (spread evenly beyond), as images", Visual: "doc_to_visual_frames",
		Intro: "You are given frames sampled from a video, in time order. Answer the question about the video.", FPS: 1, MaxFrames: 8},
	{Suffix: "blind", Says: fmt.Sprintf("no video: the question and options only, each item under %d seeded option orders (averaged per item)", BlindOrders),
		Visual: "doc_to_visual_blind", Intro: "You are given no video, only the question and its options. Answer as well as you can.", Blind: true},
}

// TemplateFile holds what the tasks share; lmms-eval does not index it as
// a task (its name does not end in .yaml), the tasks include it.
const TemplateFile = "_default_template_yaml"

// yamlString quotes s as a YAML double-quoted scalar (JSON's escapes are
// YAML's).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// templateYAML is TemplateFile: the local dataset, the target, the scoring
// and the metrics.
func templateYAML(name string, ms []metric) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# What the lmms-eval tasks of the vidscreen release %s share: the release's\n", name)
	b.WriteString("# items as a local dataset (dataset.jsonl beside this file), the gold letter, and the\n")
	b.WriteString("# scoring: the reply read by vidscreen's answer rules, accuracy per capability group.\n")
	b.WriteString("# Written by vidscreen select --export-lmms-eval; see README.md.\n")
	b.WriteString("dataset_path: json\n")
	b.WriteString("dataset_kwargs:\n  data_files:\n    test: " + DatasetFile + "\n")
	b.WriteString("test_split: test\n")
	b.WriteString("output_type: generate_until\n")
	b.WriteString("doc_to_target: !function utils.doc_to_target\n")
	b.WriteString("process_results: !function utils.process_results\n")
	b.WriteString("generation_kwargs:\n  max_new_tokens: 16\n  temperature: 0\n  do_sample: false\n")
	b.WriteString("metric_list:\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "  - metric: %s\n    aggregation: !function utils.aggregate_%s\n    higher_is_better: true\n", m.Name, m.Name)
	}
	fmt.Fprintf(&b, "metadata:\n  - version: 1\n    vidscreen_release: %s\n", yamlString(name))
	return b.String()
}

// taskYAML is one task's file.
func taskYAML(name, prefix string, t task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The vidscreen release %s, %s.\n", name, t.Says)
	fmt.Fprintf(&b, "task: %s_%s\n", prefix, t.Suffix)
	b.WriteString("include: " + TemplateFile + "\n")
	if t.Blind {
		b.WriteString("process_docs: !function utils.blind_process_docs\n")
	}
	fmt.Fprintf(&b, "doc_to_visual: !function utils.%s\n", t.Visual)
	b.WriteString("doc_to_text: !function utils.doc_to_text\n")
	b.WriteString("lmms_eval_specific_kwargs:\n  default:\n")
	fmt.Fprintf(&b, "    intro: %s\n", yamlString(t.Intro))
	fmt.Fprintf(&b, "    post_prompt: %s\n", yamlString(PostPrompt))
	if t.FPS > 0 {
		fmt.Fprintf(&b, "    fps: %g\n    max_frames: %d\n", t.FPS, t.MaxFrames)
	}
	return b.String()
}

// groupYAML is the group of the six tasks: `--tasks <prefix>` runs them
// all. It aggregates nothing across them: a blind accuracy averaged with a
// video one would mean nothing; each task reports its own metrics.
func groupYAML(name, prefix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The lmms-eval tasks of the vidscreen release %s; each reports its own accuracy.\n", name)
	fmt.Fprintf(&b, "group: %s\n", prefix)
	b.WriteString("task:\n")
	for _, t := range tasks {
		fmt.Fprintf(&b, "  - %s_%s\n", prefix, t.Suffix)
	}
	fmt.Fprintf(&b, "metadata:\n  version: 1\n  vidscreen_release: %s\n", yamlString(name))
	return b.String()
}

// utilsTail is the part of utils.py written for the release: its metrics
// and one aggregation function per metric (lmms-eval hands an aggregation
// only the records, so each capability group needs its own function).
func utilsTail(name string, ms []metric) string {
	var b strings.Builder
	fmt.Fprintf(&b, "RELEASE = %s\n", yamlString(name))
	b.WriteString("METRICS = [")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(yamlString(m.Name))
	}
	b.WriteString("]\n")
	b.WriteString("GROUPS = {")
	first := true
	for _, m := range ms {
		if m.All {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		fmt.Fprintf(&b, "%s: %s", yamlString(m.Name), yamlString(m.Group))
	}
	b.WriteString("}\n")
	for _, m := range ms {
		b.WriteString("\n\n")
		fmt.Fprintf(&b, "def aggregate_%s(results):\n", m.Name)
		if m.All {
			b.WriteString("    \"\"\"Accuracy in percent over every item.\"\"\"\n    return accuracy(results)\n")
		} else {
			fmt.Fprintf(&b, "    \"\"\"Accuracy in percent over the items of the capability group %s.\"\"\"\n", pyDocText(m.Group))
			fmt.Fprintf(&b, "    return accuracy(results, GROUPS[%s])\n", yamlString(m.Name))
		}
	}
	return b.String()
}

// pyDocText makes s safe inside a triple-quoted docstring.
func pyDocText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, `"`, `\"`)
}
