package screen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/report"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// The embedding files of a screen directory: one float32 row per item, in
// the order of screen.parquet, under the names the run directory gives the
// same rows (rundir.QuestionNPY, ...), which Open reads.
const (
	QuestionNPY    = rundir.QuestionNPY
	CentreFrameNPY = rundir.CentreFrameNPY
	MeanFrameNPY   = rundir.MeanFrameNPY
)

// ErrOldRun refuses a run directory written before the audit wrote what
// screening reads.
var ErrOldRun = errors.New("the run directory lacks what screening reads")

// Open reads the run directory dir of a finished audit: items.parquet (the
// items and, per attacker, where it was scored and what it answered there),
// cards.json (the attackers' levels) and the embedding files. A run whose
// completion record is missing or does not match its outputs is refused
// with a *completion.UnfinishedError: its files may come from two runs.
func Open(dir string) (*Input, error) {
	rec, err := completion.Check(dir)
	if err != nil {
		return nil, err
	}
	attackers, significant, err := readAttackers(filepath.Join(dir, rundir.CardsJSON))
	if err != nil {
		return nil, err
	}
	in := &Input{Run: filepath.Base(filepath.Clean(dir)), Audit: rec.Hash(), Attackers: attackers, Significant: significant}
	if in.Rows, err = readItems(filepath.Join(dir, rundir.ItemsParquet), attackers); err != nil {
		return nil, err
	}
	if rec.Vidscreen != harness.Version {
		in.Notes = append(in.Notes, fmt.Sprintf("the run was audited by vidscreen %s, this is %s: what its outputs lack is done without (the notes below); rerun the audit to have it all", rec.Vidscreen, harness.Version))
	}
	in.Notes = append(in.Notes, identityNote(in.Rows))
	q, err := readNPY(dir, rundir.QuestionNPY, len(in.Rows), true)
	if err != nil {
		return nil, err
	}
	in.Embeddings.Question = q
	if in.Embeddings.CentreFrame, err = readNPY(dir, rundir.CentreFrameNPY, len(in.Rows), false); err != nil {
		return nil, err
	}
	if in.Embeddings.MeanFrame, err = readNPY(dir, rundir.MeanFrameNPY, len(in.Rows), false); err != nil {
		return nil, err
	}
	if in.Embeddings.Text, err = readNPY(dir, rundir.TextNPY, len(in.Rows), false); err != nil {
		return nil, err
	}
	if in.Embeddings.Text == nil {
		in.Notes = append(in.Notes, fmt.Sprintf("the run has no %s (written by an older vidscreen): the duplicate steps compare the question embeddings instead of question+options", rundir.TextNPY))
	}
	cfg, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	if in.Orders, in.OrderMargins, err = readOrders(dir, in.Rows, attackers, cfg); err != nil {
		return nil, err
	}
	in.KeepYesNo = cfg != nil && cfg.YesNo == harness.YesNoKept
	in.Notes = append(in.Notes, vlmNotes(attackers, cfg)...)
	if err := readAnswerCheck(dir, in); err != nil {
		return nil, err
	}
	in.Notes = append(in.Notes, orderNotes(in)...)
	for i := range in.Rows {
		in.Rows[i].Embedding = int32(i)
		c, m := in.Embeddings.CentreFrame, in.Embeddings.MeanFrame
		in.Rows[i].HasFrame = in.Rows[i].Failure == "" && (c != nil && !zeroRow(c, i) || m != nil && !zeroRow(m, i))
	}
	return in, nil
}

// identityNote says how the duplicate steps identify the rows' videos: by
// the SHA-256 of their bytes (items.parquet's video_sha256) where the run
// recorded it, by the video path elsewhere (Video-Index 5.1, pool/dedup.py
// compares videos by content).
func identityNote(rows []Row) string {
	hashed, perceptual := 0, 0
	for i := range rows {
		if rows[i].VideoID != "" {
			hashed++
		}
		if strings.HasPrefix(rows[i].VideoID, dups.PerceptualPrefix) {
			perceptual++
		}
	}
	switch {
	case perceptual > 0:
		return fmt.Sprintf("video identity: content+perceptual (items.parquet video_identity): the SHA-256 of the video's bytes, and for %d of %d items a re-encode joined by the mean frame embedding (cosine >= %.2f, confirmed frame by frame; videos whose frames are all alike by SHA-256 only); %d items are compared by their video paths", perceptual, len(rows), dups.PerceptualThreshold, len(rows)-hashed)
	case hashed == 0:
		return "video identity: by path: the run records no content hash of its videos (no video level ran, or an older vidscreen wrote it), so the duplicate steps take two items to share a video when their video paths are equal"
	case hashed < len(rows):
		return fmt.Sprintf("video identity: by content (the SHA-256 of the video's bytes, items.parquet video_sha256) for %d of %d items; the %d whose video failed or was not read are compared by their video paths", hashed, len(rows), len(rows)-hashed)
	}
	return "video identity: by content: the duplicate steps take two items to share a video when the SHA-256 of their videos' bytes is the same (items.parquet video_sha256)"
}

// orderNotes says which options-only and blind readers the run cannot
// judge as Video-Index 5.1 does (three of four seeded option orders, mean
// margin over the four): without further orders, or without their margins.
func orderNotes(in *Input) []string {
	var out []string
	for _, a := range in.Attackers {
		switch {
		case !isMultiOrder(a.Name):
		case len(in.Orders[a.Name]) == 0:
			out = append(out, fmt.Sprintf("%s: the run's permutation audit holds no further option orders of it (off, or a merged run): it is judged on the original order alone, not three of four", a.Name))
		case in.OrderMargins[a.Name] == nil:
			out = append(out, fmt.Sprintf("%s: the run's permutation cache keeps the choices of its further option orders but not their margins (written before vidscreen kept them): three of four orders must be correct, and the margin condition is read on the original order instead of the mean over the four", a.Name))
		}
	}
	return out
}

// vlmNotes says which VLM answered the funnel's 32-frame steps: Video-Index
// 5.1 uses a smaller VLM for them than for the single frame (the
// screen_reader role); a run without one used vlm_reader throughout.
func vlmNotes(attackers []Attacker, cfg *runConfig) []string {
	has := func(name string) bool {
		return slices.ContainsFunc(attackers, func(a Attacker) bool { return a.Name == name })
	}
	if !has("full-video-reader") && !has("shuffled-frames-reader") {
		return nil
	}
	vlm, screen := "vlm_reader", ""
	if cfg != nil && cfg.Videos != nil {
		if cfg.Videos.VLMReader != "" {
			vlm += " (" + cfg.Videos.VLMReader + ")"
		}
		screen = cfg.Videos.ScreenReader
	}
	if screen == "" {
		return []string{fmt.Sprintf("one VLM: the 32-frame steps (full-video-reader, shuffled-frames-reader) use %s, the model of the single-frame step, where Video-Index 5.1 uses a smaller one (a screen_reader role)", vlm)}
	}
	if has(ShuffledScreenReader) {
		return []string{fmt.Sprintf("the 32-frame steps use screen_reader (%s): full-video-reader, and %s as the shuffled step; the card's shuffled-frames-reader stays on %s (the order level and the retention compare it with the same model in order)", screen, ShuffledScreenReader, vlm)}
	}
	return []string{fmt.Sprintf("full-video-reader used screen_reader (%s); the shuffled step is the card's shuffled-frames-reader, on %s", screen, vlm)}
}

func zeroRow(m *kernels.Matrix, i int) bool {
	for _, x := range m.Row(i) {
		if x != 0 {
			return false
		}
	}
	return true
}

// readNPY reads dir/name, which must hold rows rows; a missing optional file
// is nil.
func readNPY(dir, name string, rows int, required bool) (*kernels.Matrix, error) {
	path := filepath.Join(dir, name)
	m, err := npy.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w (written by an older vidscreen?): run the same audit on it again, which resumes without recomputing and writes it", path, ErrOldRun)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Rows != rows {
		return nil, fmt.Errorf("%s: %d rows for the %d items of %s", path, m.Rows, rows, rundir.ItemsParquet)
	}
	return m, nil
}

// readAttackers lists the attackers of the run's cards with their levels,
// each once, in the order the cards list them, and per benchmark those its
// card finds significantly above chance.
func readAttackers(path string) ([]Attacker, map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: %w: not a finished audit (vidscreen audit writes it last)", path, err)
		}
		return nil, nil, err
	}
	var f struct {
		Cards []struct {
			Benchmark string `json:"benchmark"`
			Attackers []struct {
				Name        string `json:"name"`
				Level       string `json:"level"`
				Significant bool   `json:"significant"`
			} `json:"attackers"`
		} `json:"cards"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Attacker
	significant := map[string][]string{}
	for _, c := range f.Cards {
		significant[c.Benchmark] = []string{}
		for _, a := range c.Attackers {
			if !slices.ContainsFunc(out, func(x Attacker) bool { return x.Name == a.Name }) {
				out = append(out, Attacker{Name: a.Name, Level: a.Level})
			}
			if a.Significant {
				significant[c.Benchmark] = append(significant[c.Benchmark], a.Name)
			}
		}
	}
	return out, significant, nil
}

// readItems reads items.parquet into rows holding one raw verdict per
// attacker (in attackers' order). Columns are found by name, so the file
// may have more than screening reads.
// A video_identity column (the identity the audit counted shared videos
// by, perhaps joined by the perceptual match) gives Row.VideoID, else a
// video_sha256 column (the content identity of each item's video, ""
// where the run read none); a file without either leaves it empty, and
// Compute then identifies the video by its path.
func readItems(path string, attackers []Attacker) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{} // top-level column name -> leaf index
	for i, p := range pf.Schema().Columns() {
		col[p[0]] = i
	}
	need := func(name string) (int, error) {
		i, ok := col[name]
		if !ok {
			return 0, fmt.Errorf("%s: no column %q: %w (written by an older vidscreen?): run the same audit on it again, which resumes without recomputing and rewrites it", path, name, ErrOldRun)
		}
		return i, nil
	}
	var c struct {
		id, bench, video, task, group, question, options, answer, cluster, duration, failure int
	}
	for _, x := range []struct {
		name string
		dst  *int
	}{{"id", &c.id}, {"benchmark", &c.bench}, {"video", &c.video}, {"task", &c.task}, {"group", &c.group},
		{"question", &c.question}, {"options", &c.options}, {"answer", &c.answer}, {"dup_cluster", &c.cluster},
		{"duration", &c.duration}, {"failure", &c.failure}} {
		if *x.dst, err = need(x.name); err != nil {
			return nil, err
		}
	}
	hashCol, hashed := col["video_sha256"]
	identCol, identified := col["video_identity"]
	// An audit from before duration_category has none: its items had no
	// category then either (it was kept in meta).
	catCol, categorized := col["duration_category"]
	flags := harness.QualityNames()
	dq := make([]int, len(flags))
	for k, fl := range flags {
		if dq[k], err = need("dq_" + fl); err != nil {
			return nil, err
		}
	}
	type attCols struct{ pred, scored, abstained, correct, margin int }
	ac := make([]attCols, len(attackers))
	for k, a := range attackers {
		p := report.ColumnName(a.Name) + "_"
		for _, x := range []struct {
			suffix string
			dst    *int
		}{{"pred", &ac[k].pred}, {"scored", &ac[k].scored}, {"abstained", &ac[k].abstained}, {"correct", &ac[k].correct}, {"margin", &ac[k].margin}} {
			if *x.dst, err = need(p + x.suffix); err != nil {
				return nil, err
			}
		}
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	rows := make([]Row, 0, pf.NumRows())
	buf := make([]parquet.Row, 256)
	cols := make([][]parquet.Value, len(col))
	for {
		n, rerr := r.ReadRows(buf)
		for _, pr := range buf[:n] {
			for i := range cols {
				cols[i] = cols[i][:0]
			}
			pr.Range(func(i int, vals []parquet.Value) bool {
				if i < len(cols) {
					cols[i] = append(cols[i], vals...)
				}
				return true
			})
			one := func(i int) parquet.Value {
				if len(cols[i]) == 0 {
					return parquet.Value{}
				}
				return cols[i][0]
			}
			row := Row{
				ID: one(c.id).String(), Benchmark: one(c.bench).String(), Video: one(c.video).String(),
				Task: one(c.task).String(), Group: one(c.group).String(), Question: one(c.question).String(),
				Answer: one(c.answer).Int32(), Cluster: one(c.cluster).Int32(), Failure: one(c.failure).String(),
			}
			if hashed {
				row.VideoID = one(hashCol).String()
			}
			if categorized {
				row.DurationCategory = one(catCol).String()
			}
			if identified {
				if id := one(identCol).String(); id != "" {
					row.VideoID = id
				}
			}
			for _, v := range cols[c.options] {
				if !v.IsNull() {
					row.Options = append(row.Options, v.String())
				}
			}
			if d := one(c.duration); !d.IsNull() {
				x := d.Double()
				row.Duration = &x
			}
			row.Quality = []string{}
			for k, fl := range flags {
				if one(dq[k]).Boolean() {
					row.Quality = append(row.Quality, fl)
				}
			}
			row.Verdicts = make([]Verdict, len(attackers))
			for k, a := range attackers {
				x := ac[k]
				row.Verdicts[k] = Verdict{Attacker: a.Name, Choice: one(x.pred).Int32(), Scored: one(x.scored).Boolean(),
					Abstained: one(x.abstained).Boolean(), Correct: one(x.correct).Boolean(), Margin: one(x.margin).Double()}
			}
			rows = append(rows, row)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%s: %w", path, rerr)
		}
	}
	return rows, nil
}
