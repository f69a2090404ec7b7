package release

import (
	"context"
	"reflect"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

func TestScenesClusterLookalikeVideosByName(t *testing.T) {
	t.Parallel()
	videos := []string{"c", "b", "a", "d"}
	x := &kernels.Matrix{Rows: 4, Cols: 3, Data: []float32{
		0, 1, 0, // c: another scene
		1, 0.05, 0, // b: cosine 0.999 with a
		2, 0, 0, // a: the leader (first by name), unnormalised
		0, 0, 0, // d: no frames
	}}
	got, err := Scenes(context.Background(), videos, x, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "scene:a", "b": "scene:a", "c": "scene:c", "d": "scene:d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scenes %v, want %v", got, want)
	}
	if _, err := Scenes(context.Background(), []string{"a", "a"}, kernels.NewMatrix(2, 3), 0.9, kernels.Options{}); err == nil {
		t.Error("a video listed twice was accepted")
	}
}
