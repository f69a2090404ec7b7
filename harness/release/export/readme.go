package export

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness/release"
)

// readme is the task directory's README.md: what the tasks are and how to
// run them.
func readme(r *release.Release, prefix string, ms []metric) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s for lmms-eval\n\n", r.Name)
	fmt.Fprintf(&b, "The vidscreen release `%s` (%d multiple-choice items; its lockfile says how it was made) as\n", r.Name, len(r.Items))
	b.WriteString("an [lmms-eval](https://github.com/EvolvingLMMs-Lab/lmms-eval) task directory, written by\n")
	b.WriteString("`vidscreen select --export-lmms-eval`. The items are the local dataset `" + DatasetFile + "`: no dataset hub\n")
	b.WriteString("is needed.\n\n")
	b.WriteString("## Run\n\n```bash\n")
	b.WriteString("export VIDSCREEN_VIDEOS=/path/to/videos   # the video root the items name their videos under\n")
	fmt.Fprintf(&b, "python -m lmms_eval --model <model> --model_args <args> --include_path %s \\\n    --tasks %s --batch_size 1 --log_samples --output_path results/\n", "THIS_DIRECTORY", prefix)
	b.WriteString("```\n\n")
	fmt.Fprintf(&b, "`--tasks %s` runs the six tasks; name one (`--tasks %s_8frame`) to run it alone.\n", prefix, prefix)
	b.WriteString("Each item's video is `video_path`, else `video` (with .mp4, .webm, .mkv, .mov, .avi, .m4v, .ts or .MP4\n")
	b.WriteString("tried when it has no extension), under `$VIDSCREEN_VIDEOS`; a path that leaves that root is refused.\n")
	b.WriteString("lmms-eval after v0.7.2 finds `" + DatasetFile + "` beside the YAML files; v0.7.2 and older resolve\n")
	b.WriteString("`data_files` against the working directory: run from this directory, or make the path in\n")
	b.WriteString("`" + TemplateFile + "` absolute.\n\n")
	b.WriteString("## Tasks\n\n| Task | The model is given |\n| --- | --- |\n")
	for _, t := range tasks {
		fmt.Fprintf(&b, "| `%s_%s` | %s |\n", prefix, t.Suffix, t.Says)
	}
	b.WriteString("\nThe frame tasks decode the videos with decord and pass PIL images; an item with clip bounds\n")
	b.WriteString("(`start`, `end`) is sampled within them. The video task passes the whole file.\n")
	fmt.Fprintf(&b, "The blind task's %d option orders are fixed per item (drawn from the release seed and the item id),\n", BlindOrders)
	b.WriteString("so every model is shown the same orders. A model's gain from the video is its accuracy on a video\n")
	b.WriteString("or frame task minus its accuracy on the blind task.\n\n")
	b.WriteString("The prompt: the task's first sentence, a blank line, the question, the options as `A. ...`,\n")
	fmt.Fprintf(&b, "`B. ...`, and `%s`\n\n", PostPrompt)
	b.WriteString("## Metrics\n\nAccuracy in percent; in the blind task an item's orders are averaged before the mean over\n")
	b.WriteString("items. A metric whose group has no item in the evaluated slice (`--limit`) is `nan`.\n\n")
	b.WriteString("| Metric | Items |\n| --- | --- |\n")
	for _, m := range ms {
		if m.All {
			fmt.Fprintf(&b, "| `%s` | all |\n", m.Name)
		} else {
			fmt.Fprintf(&b, "| `%s` | capability group `%s` |\n", m.Name, m.Group)
		}
	}
	b.WriteString("\nA reply is read by vidscreen's answer rules (docs/audit.md): a leading option letter, else the last\n")
	b.WriteString("\"answer is X\", else the text of exactly one option, else a bare option number counted from 1. A reply\n")
	b.WriteString("that names no option counts as wrong. The per-document records (`--log_samples`) hold the item\n")
	b.WriteString("(`question_id`), the letter read (`pred_answer`, empty when none) and the gold (`answer`).\n\n")
	b.WriteString("## Back into vidscreen\n\n`vidscreen import lmms-eval-task " + DatasetFile + " --out ITEMS.jsonl` gives the release's items back.\n")
	return b.String()
}
