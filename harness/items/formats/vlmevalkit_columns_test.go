package formats

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestVLMEvalKitTaskGroupAndVideoPath: which columns become the item's task,
// group and video_path. vidscreen's export (harness/release/export) writes
// task_type (the task) and category (the capability group) side by side,
// and video_path beside video; a table with category alone (VLMEvalKit's
// MVBench results) has its category as the task.
func TestVLMEvalKitTaskGroupAndVideoPath(t *testing.T) {
	t.Parallel()
	type want struct{ task, group, videoPath string }
	for _, tc := range []struct {
		name, header string
		rows         []string
		want         []want
	}{
		{
			name:   "the export's columns",
			header: "index\tquestion_id\tvideo\tvideo_path\tquestion\tcandidates\tanswer\ttask_type\tcategory\tduration",
			rows: []string{
				"0\tnextqa/val/1_3\t4010069381\tnextqa/4010069381.mp4\twhy?\t['a', 'b']\tB\tCW\treasoning\t31.5",
				// An item without a task keeps none: its category is its group.
				"1\tegoschema/0074\t0074f737\t\twhat?\t['a', 'b']\tA\t\tperception\t",
				"2\tstar/1\t6H78U\t\twhich?\t['a', 'b']\tA\tInteraction\t\t",
			},
			want: []want{{"CW", "reasoning", "nextqa/4010069381.mp4"}, {"", "perception", ""}, {"Interaction", "", ""}},
		},
		{
			name:   "category without a task column is the task",
			header: "index\tvideo\tquestion\tA\tB\tanswer\tcategory",
			rows:   []string{"0\tv1.mp4\tq?\tx\ty\tA\tAction Sequence"},
			want:   []want{{"Action Sequence", "", ""}},
		},
		{
			name:   "a group column is the group, category then stays out",
			header: "index\tvideo\tquestion\tA\tB\tanswer\ttask_type\tcategory\tgroup",
			rows:   []string{"0\tv1.mp4\tq?\tx\ty\tA\tCounting\tsports\tperception"},
			want:   []want{{"Counting", "perception", ""}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "Video-MME.tsv", tc.header+"\n"+strings.Join(tc.rows, "\n")+"\n")
			rows, err := ReadVLMEvalKit(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tc.want) {
				t.Fatalf("%d rows, want %d", len(rows), len(tc.want))
			}
			for i, w := range tc.want {
				r := rows[i]
				if got := (want{r.Task, r.Group, r.VideoPath}); got != w {
					t.Errorf("%s: task, group, video_path %q; want %q", filepath.Base(r.Source), got, w)
				}
			}
		})
	}
}
