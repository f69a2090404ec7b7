package report

import (
	"fmt"
	"io"
	"reflect"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
)

// itemColumns are the fixed columns of items.parquet, before the attackers'.
var itemColumns = []reflect.StructField{
	{Name: "ID", Type: reflect.TypeFor[string](), Tag: `parquet:"id"`},
	{Name: "Benchmark", Type: reflect.TypeFor[string](), Tag: `parquet:"benchmark"`},
	{Name: "Video", Type: reflect.TypeFor[string](), Tag: `parquet:"video"`},
	{Name: "Task", Type: reflect.TypeFor[string](), Tag: `parquet:"task"`},
	{Name: "Group", Type: reflect.TypeFor[string](), Tag: `parquet:"group"`},
	{Name: "Question", Type: reflect.TypeFor[string](), Tag: `parquet:"question"`},
	{Name: "Options", Type: reflect.TypeFor[[]string](), Tag: `parquet:"options,list"`},
	{Name: "NOptions", Type: reflect.TypeFor[int32](), Tag: `parquet:"n_options"`},
	{Name: "Answer", Type: reflect.TypeFor[int32](), Tag: `parquet:"answer"`},
	{Name: "Cluster", Type: reflect.TypeFor[int32](), Tag: `parquet:"dup_cluster"`},
	{Name: "Duration", Type: reflect.TypeFor[*float64](), Tag: `parquet:"duration,optional"`},
	{Name: "Failure", Type: reflect.TypeFor[string](), Tag: `parquet:"failure"`},
	{Name: "VideoSHA256", Type: reflect.TypeFor[string](), Tag: `parquet:"video_sha256"`},
	{Name: "VideoIdentity", Type: reflect.TypeFor[string](), Tag: `parquet:"video_identity"`},
	// DurationCategory is the item's duration_category (Video-MME's
	// short/medium/long), which select groups by when duration is null.
	{Name: "DurationCategory", Type: reflect.TypeFor[string](), Tag: `parquet:"duration_category"`},
}

// perAttacker are the columns of each attacker, in order, by suffix.
var perAttacker = []struct {
	suffix string
	typ    reflect.Type
}{
	{"pred", reflect.TypeFor[int32]()},
	{"scored", reflect.TypeFor[bool]()},
	{"abstained", reflect.TypeFor[bool]()},
	{"correct", reflect.TypeFor[bool]()},
	{"margin", reflect.TypeFor[float64]()},
	{"solved", reflect.TypeFor[bool]()},
	{"floored", reflect.TypeFor[bool]()},
}

// WriteItemsParquet writes items.parquet: one row per item, in the run's
// item order, with the columns id, benchmark, video, task, group, question,
// options (a list), n_options, answer, dup_cluster (the near-duplicate
// cluster id of duplicates.parquet; -1 without a duplicate analysis),
// duration (seconds; null when the item does not say), failure (why the
// item's video gave no features, Report.Failures; "" otherwise),
// video_sha256 (the SHA-256 of the item's video file, hex, that the feature
// stage read, Report.VideoSHA256; "" when no video level ran or the video
// failed, kept where only a served reader's server failed), video_identity (the identity shared videos and the duplicate
// steps compare, Report.VideoIdentity: "sha256:<hex>", "id:<video>" or,
// where a perceptual match joined re-encodes, "perceptual:" and the group's
// smallest content identity; "" where the video failed or none was read,
// kept where only a served reader's server failed), one
// boolean dq_<flag> per data-quality flag (harness.QualityNames), then for
// each attacker (in column order) <name>_pred (the option chosen where the
// item was scored; -1 when the attacker has no prediction), <name>_scored
// (whether an order scored the item), <name>_abstained (the answer there was
// a seeded guess), <name>_correct, <name>_margin (log p(gold) - mean log
// p(others) there), <name>_solved (answered correctly where scored) and
// <name>_floored (a score of that answer is the floor log(1e-6), not the
// model's: a served reader's server left an option's letter out of its top
// log-probabilities, so the margin rests on the authors' floor; false for
// every attacker that is not a model reader), the attacker's name in lower
// case with other characters turned to underscores.
//
// The attacker columns are only known at run time, so the row type is built
// with reflect.StructOf: parquet-go derives the schema, in field order, from
// it.
func (r *Report) WriteItemsParquet(w io.Writer) error {
	fields := append([]reflect.StructField(nil), itemColumns...)
	flags := harness.QualityNames()
	for k, f := range flags {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("DQ%d", k), Type: reflect.TypeFor[bool](), Tag: reflect.StructTag(fmt.Sprintf(`parquet:"dq_%s"`, f))})
	}
	fixed := len(fields)
	col := map[string]int{}
	for k, a := range r.Attackers {
		name := columnName(a.Name)
		if _, dup := col[a.Name]; dup {
			return fmt.Errorf("items table: attacker %q listed twice", a.Name)
		}
		col[a.Name] = k
		for c, x := range perAttacker {
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("A%d_%d", k, c), Type: x.typ, Tag: reflect.StructTag(fmt.Sprintf(`parquet:"%s_%s"`, name, x.suffix))})
		}
	}
	typ := reflect.StructOf(fields)
	rows := reflect.MakeSlice(reflect.SliceOf(typ), len(r.Items), len(r.Items))
	for i, it := range r.Items {
		row := rows.Index(i)
		row.Field(0).SetString(it.ID)
		row.Field(1).SetString(it.Benchmark)
		row.Field(2).SetString(it.Video)
		row.Field(3).SetString(it.Task)
		row.Field(4).SetString(it.Group)
		row.Field(5).SetString(it.Question)
		row.Field(6).Set(reflect.ValueOf(append([]string{}, it.Options...)))
		row.Field(7).SetInt(int64(len(it.Options)))
		row.Field(8).SetInt(int64(it.Answer))
		row.Field(9).SetInt(-1)
		if d := r.Duplicates; d != nil && i < len(d.Cluster) {
			row.Field(9).SetInt(int64(d.Cluster[i]))
		}
		if it.Duration != nil {
			d := *it.Duration
			row.Field(10).Set(reflect.ValueOf(&d))
		}
		if i < len(r.Failures) {
			row.Field(11).SetString(r.Failures[i])
		}
		if videoRead(r.Failures, i) && i < len(r.VideoSHA256) {
			row.Field(12).SetString(r.VideoSHA256[i])
		}
		if videoRead(r.Failures, i) && i < len(r.VideoIdentity) {
			row.Field(13).SetString(r.VideoIdentity[i])
		}
		row.Field(14).SetString(it.DurationCategory)
		for k, f := range flags {
			q, _ := harness.Flag(f)
			row.Field(len(itemColumns) + k).SetBool(it.Quality.Has(q))
		}
		for k := range r.Attackers {
			row.Field(fixed + len(perAttacker)*k).SetInt(-1) // no prediction stored
		}
	}
	for _, s := range r.Scores {
		k, ok := col[s.Attacker]
		if !ok || s.Item < 0 || s.Item >= len(r.Items) {
			return fmt.Errorf("items table: score of attacker %q for item %d matches no column or row", s.Attacker, s.Item)
		}
		row := rows.Index(s.Item)
		base := fixed + len(perAttacker)*k
		row.Field(base).SetInt(int64(s.Choice))
		row.Field(base + 1).SetBool(s.Scored)
		row.Field(base + 2).SetBool(s.Abstained)
		row.Field(base + 3).SetBool(s.Correct)
		row.Field(base + 4).SetFloat(s.Margin)
		row.Field(base + 5).SetBool(s.Solved)
		row.Field(base + 6).SetBool(s.Floored)
	}
	schema := parquet.SchemaOf(reflect.New(typ).Interface())
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd))
	for i := 0; i < rows.Len(); i++ {
		if err := pw.Write(rows.Index(i).Addr().Interface()); err != nil {
			return fmt.Errorf("items table: %w", err)
		}
	}
	return pw.Close()
}

// A duplicateRow is one row of duplicates.parquet.
type duplicateRow struct {
	AID         string  `parquet:"a_id"`
	ABenchmark  string  `parquet:"a_benchmark"`
	AVideo      string  `parquet:"a_video"`
	BID         string  `parquet:"b_id"`
	BBenchmark  string  `parquet:"b_benchmark"`
	BVideo      string  `parquet:"b_video"`
	Similarity  float32 `parquet:"similarity"`
	Cross       bool    `parquet:"cross_benchmark"`
	Cluster     int32   `parquet:"cluster"`
	ClusterSize int32   `parquet:"cluster_size"`
}

// A confirmedDuplicateRow is a row of duplicates.parquet when a second model
// confirmed the pairs: the first model's similarity and the second's.
type confirmedDuplicateRow struct {
	AID               string  `parquet:"a_id"`
	ABenchmark        string  `parquet:"a_benchmark"`
	AVideo            string  `parquet:"a_video"`
	BID               string  `parquet:"b_id"`
	BBenchmark        string  `parquet:"b_benchmark"`
	BVideo            string  `parquet:"b_video"`
	Similarity        float32 `parquet:"similarity"`
	ConfirmSimilarity float32 `parquet:"confirm_similarity"`
	Cross             bool    `parquet:"cross_benchmark"`
	Cluster           int32   `parquet:"cluster"`
	ClusterSize       int32   `parquet:"cluster_size"`
}

// WriteDuplicatesParquet writes duplicates.parquet: one row per
// near-duplicate pair (a before b in the run's item order), with both items'
// ids, benchmarks and videos, the cosine of their question embeddings,
// whether they come from different benchmarks, the id of the cluster the pair
// belongs to (the run's index of its first item, as items.parquet's
// dup_cluster) and that cluster's size. When a second model confirmed the
// pairs (dups.Confirm), only the confirmed pairs are written, with the second
// model's cosine in a confirm_similarity column after similarity.
func (r *Report) WriteDuplicatesParquet(w io.Writer) error {
	var rows []duplicateRow
	d := r.Duplicates
	if d != nil {
		rows = make([]duplicateRow, 0, len(d.Pairs))
		for _, p := range d.Pairs {
			if p.A < 0 || p.B >= len(r.Items) || p.A >= p.B {
				return fmt.Errorf("duplicates table: bad pair (%d, %d)", p.A, p.B)
			}
			a, b := r.Items[p.A], r.Items[p.B]
			row := duplicateRow{AID: a.ID, ABenchmark: a.Benchmark, AVideo: a.Video, BID: b.ID, BBenchmark: b.Benchmark, BVideo: b.Video,
				Similarity: p.Sim, Cross: a.Benchmark != b.Benchmark, Cluster: -1}
			if p.A < len(d.ClusterSize) {
				row.ClusterSize = d.ClusterSize[p.A]
			}
			if p.A < len(d.Cluster) {
				row.Cluster = d.Cluster[p.A]
			}
			rows = append(rows, row)
		}
	}
	if d == nil || !d.Confirmed {
		return writeRows(w, rows)
	}
	confirmed := make([]confirmedDuplicateRow, len(rows))
	for k, x := range rows {
		confirmed[k] = confirmedDuplicateRow{AID: x.AID, ABenchmark: x.ABenchmark, AVideo: x.AVideo, BID: x.BID, BBenchmark: x.BBenchmark, BVideo: x.BVideo,
			Similarity: x.Similarity, ConfirmSimilarity: d.Pairs[k].ConfirmSim, Cross: x.Cross, Cluster: x.Cluster, ClusterSize: x.ClusterSize}
	}
	return writeRows(w, confirmed)
}

// writeRows writes one zstd-compressed parquet table of rows.
func writeRows[T any](w io.Writer, rows []T) error {
	pw := parquet.NewGenericWriter[T](w, parquet.Compression(&parquet.Zstd))
	if _, err := pw.Write(rows); err != nil {
		return fmt.Errorf("duplicates table: %w", err)
	}
	return pw.Close()
}

// videoRead reports whether item i's video columns are kept: it did not
// fail, or failed only because a served reader's server did
// (letters.FailureServer). Those columns come from the video's bytes and
// frames, which were read; a resumed run against a recovered server
// writes the same ones.
func videoRead(failures []string, i int) bool {
	return i >= len(failures) || failures[i] == "" || failures[i] == letters.FailureServer
}
