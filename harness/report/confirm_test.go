package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness/dups"
)

// TestConfirmedDuplicates checks what a run whose pairs a second model
// confirmed adds: the confirm_similarity column and the card's count of
// removed pairs; the unconfirmed tables keep their schema (the golden tests).
func TestConfirmedDuplicates(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	r.Duplicates = &dups.Result{Threshold: 0.9, Confirmed: true,
		Pairs:       []dups.Pair{{A: 3, B: 4, Sim: 0.9375, ConfirmSim: 0.9125}},
		Unconfirmed: []dups.Pair{{A: 0, B: 1, Sim: 0.95, ConfirmSim: 0.5}},
		Cluster:     []int32{0, 1, 2, 3, 3}, ClusterSize: []int32{1, 1, 1, 2, 2}}
	r.Cards[0].UnconfirmedDuplicates = ptr(1)
	r.Cards[1].UnconfirmedDuplicates = ptr(0)

	var b bytes.Buffer
	if err := r.WriteDuplicatesParquet(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[confirmedDuplicateRow](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := confirmedDuplicateRow{AID: r.Items[3].ID, ABenchmark: "VideoHallucer", AVideo: r.Items[3].Video, BID: r.Items[4].ID, BBenchmark: "VideoHallucer", BVideo: r.Items[4].Video,
		Similarity: 0.9375, ConfirmSimilarity: 0.9125, Cluster: 3, ClusterSize: 2}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows %+v, want [%+v]", rows, want)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range f.Schema().Columns() {
		cols = append(cols, strings.Join(c, "."))
	}
	if got := strings.Join(cols, ","); got != "a_id,a_benchmark,a_video,b_id,b_benchmark,b_video,similarity,confirm_similarity,cross_benchmark,cluster,cluster_size" {
		t.Errorf("columns %s", got)
	}

	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "confirmation by a second model removed 1 pairs") {
		t.Errorf("cards.md does not say how many pairs confirmation removed:\n%s", md.String())
	}
	if err := r.WriteCardsJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"unconfirmed_duplicate_pairs": 1`) {
		t.Errorf("cards.json lacks unconfirmed_duplicate_pairs:\n%s", js.String())
	}
}
