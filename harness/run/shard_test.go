package run

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Shard
		err  bool
	}{
		{"0/1", Shard{0, 1}, false},
		{"2/3", Shard{2, 3}, false},
		{" 7 / 8 ", Shard{7, 8}, false},
		{"3/3", Shard{}, true},
		{"-1/2", Shard{}, true},
		{"0/0", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
		{"", Shard{}, true},
	}
	for _, tc := range tests {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if !tc.err && got.String() != fmt.Sprintf("%d/%d", tc.want.Index, tc.want.Count) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

// TestVideoShard pins the placement, keeps a video's items together and
// spreads numbered names evenly.
func TestVideoShard(t *testing.T) {
	t.Parallel()
	it := func(video, path string) *harness.Item { return &harness.Item{Video: video, VideoPath: path} }
	// Fixed placements of the hash (SHA-256 of the path, first 8 bytes,
	// big-endian, modulo the count): the hash is part of the format, so
	// changing it must change these.
	for _, tc := range []struct {
		it    *harness.Item
		count int
		want  int
	}{
		{it("4010069381", ""), 8, 2},
		{it("x", "videos/w0001.mp4"), 3, 1},
		{it("x", "videos/w0002.mp4"), 3, 0},
		{it("a.mp4", ""), 8, 0},
		{it("x", "any"), 1, 0},
	} {
		if got := VideoShard("", tc.it, tc.count); got != tc.want {
			t.Errorf("VideoShard(%+v, %d) = %d, want %d", *tc.it, tc.count, got, tc.want)
		}
	}
	// video_path wins over video: items of one file share a shard.
	if VideoShard("", it("a", "same.mp4"), 97) != VideoShard("", it("b", "same.mp4"), 97) {
		t.Error("two items of one video_path in different shards")
	}
	for _, n := range []int{2, 3, 8} {
		counts := make([]int, n)
		const videos = 4000
		for k := range videos {
			counts[VideoShard("", it("", fmt.Sprintf("videos/w%04d.mp4", k)), n)]++
		}
		for s, c := range counts {
			if want := videos / n; c < want*9/10 || c > want*11/10 {
				t.Errorf("%d shards: shard %d holds %d of %d videos, want about %d", n, s, c, videos, want)
			}
		}
	}
}

// BenchmarkMerge measures vidscreen merge on the embedded default at the
// text levels split into four shards: the check of the shards, the seeding
// of the cache and the stages after, in items/s.
func BenchmarkMerge(b *testing.B) {
	tmp := b.TempDir()
	base := Options{FS: demo.FS(), Items: demo.Items(), Seed: 1, Workers: 2}
	var shards []string
	for i := range 4 {
		opt := base
		opt.Out = filepath.Join(tmp, fmt.Sprintf("shard-%d", i))
		opt.Shard = &Shard{i, 4}
		if _, err := Audit(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
		shards = append(shards, opt.Out)
	}
	items := 0
	merge := 0.0
	for b.Loop() {
		opt := base
		opt.Out = filepath.Join(b.TempDir(), "merged")
		opt.Merge = shards
		res, err := Audit(context.Background(), opt)
		if err != nil {
			b.Fatal(err)
		}
		items += res.Items
		for _, st := range res.Stages {
			if st.Name == "merge" {
				merge += st.Time.Seconds()
			}
		}
	}
	b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(merge/float64(b.N), "s-check-and-seed")
}
