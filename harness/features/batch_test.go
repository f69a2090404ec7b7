package features

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/models"
)

// TestImageTowerRowsDoNotDependOnTheirBatch checks what the feature stage's
// determinism rests on: an image's embedding is the same bits whichever
// other images share its run and wherever it sits in it, for runs of two
// or more images. (A run of one takes ONNX Runtime's matrix-vector path,
// whose sums round differently in the last bit: the infer stage never runs
// one; see padSingle.)
func TestImageTowerRowsDoNotDependOnTheirBatch(t *testing.T) {
	openTiny(t)
	ctx := context.Background()
	h, w := tiny.prep.OutputSize()
	fl := tiny.prep.FrameLen()
	data := make([]float32, 40*fl)
	for i := range data {
		data[i] = float32(math.Sin(float64(i) * 0.37))
	}
	emb := func(lo, hi int) [][]float32 {
		b := padSingle(models.ImageBatch{N: hi - lo, C: 3, H: h, W: w, Data: data[lo*fl : hi*fl]})
		e, err := tiny.it.EmbedImages(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return e[:hi-lo]
	}
	full := emb(0, 32)
	for _, tc := range [][2]int{{0, 1}, {5, 6}, {3, 5}, {7, 10}, {1, 7}, {4, 12}, {3, 19}, {1, 33}} {
		part := emb(tc[0], tc[1])
		for i := range part {
			if tc[0]+i >= len(full) {
				continue
			}
			for j := range part[i] {
				if math.Float32bits(part[i][j]) != math.Float32bits(full[tc[0]+i][j]) {
					t.Errorf("image %d in run [%d,%d): value %d is %v, in run [0,32) %v", tc[0]+i, tc[0], tc[1], j, part[i][j], full[tc[0]+i][j])
					break
				}
			}
		}
	}
}

func TestRunSizesNeverLeaveOneFrameAlone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n, max int
		want   []int
	}{
		{1, 32, []int{1}}, {2, 32, []int{2}}, {32, 32, []int{32}}, {33, 32, []int{31, 2}},
		{64, 32, []int{32, 32}}, {65, 32, []int{32, 31, 2}}, {5, 1, []int{3, 2}}, {4, 2, []int{2, 2}},
	} {
		got := runSizes(tt.n, tt.max)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("runSizes(%d, %d) = %v, want %v", tt.n, tt.max, got, tt.want)
		}
	}
}
