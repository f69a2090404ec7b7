package dups

import (
	"slices"

	"github.com/vidscreen/vidscreen/harness"
)

// What identifies a video when shared videos are counted (Result.VideosBy).
const (
	// VideosByID: the item's video string. Two benchmarks that ship one
	// clip under different names are not matched, and two that reuse a name
	// for different clips are; the card says so.
	VideosByID = "video id"
	// VideosByContent: the SHA-256 of the video file's bytes, which the
	// feature extraction computes (harness/features); items whose file
	// could not be read fall back to their video id.
	VideosByContent = "content (SHA-256 of the video file)"
)

// Prefixes of the identities VideoIdentity returns, so that a video id can
// never equal a content hash.
const (
	IDPrefix      = "id:"
	ContentPrefix = "sha256:"
)

// VideoIdentity is the identity of it's video: its content hash when known
// (the SHA-256 of the file's bytes, hex), else its video id. Video-Index
// 4.5 counts "items use videos that appear in another benchmark"; the same
// clip ships under different names (NExT-QA's and IntentQA's ids name one
// VidOR video), so content is the identity when the videos were read. The
// selector's one-item-per-video cap uses the same identity (harness/release).
func VideoIdentity(it *harness.Item, content string) string {
	if content != "" {
		return ContentPrefix + content
	}
	return IDPrefix + it.Video
}

// SharedVideos counts again, by the identity of each item's video
// (identity[i], as VideoIdentity gives it), the items of each benchmark
// whose video another benchmark uses too (Video-Index 4.5) and the flows
// between benchmarks, and records by says what identifies a video
// (VideosByID or VideosByContent). identity must hold one entry per item.
func (r *Result) SharedVideos(items []*harness.Item, identity []string, by string) {
	id := func(i int) string { return identity[i] }
	r.videoIdentity = id
	r.countSharedVideos(items, id)
	r.VideosBy = by
}

// countSharedVideos fills Videos and each benchmark's SharedVideoItems: an
// item counts once in its benchmark, and once for each other benchmark that
// uses its video, in that benchmark's flow.
func (r *Result) countSharedVideos(items []*harness.Item, identity func(i int) string) {
	if r.VideosBy == "" {
		r.VideosBy = VideosByID
	}
	videoBenchmarks := map[string][]string{}
	for i, it := range items {
		v := identity(i)
		bs := videoBenchmarks[v]
		if !slices.Contains(bs, it.Benchmark) {
			videoBenchmarks[v] = append(bs, it.Benchmark)
		}
	}
	at := make(map[string]int, len(r.Benchmarks))
	for k := range r.Benchmarks {
		r.Benchmarks[k].SharedVideoItems = 0
		at[r.Benchmarks[k].Benchmark] = k
	}
	videos := map[[2]string]int{}
	for i, it := range items {
		bs := videoBenchmarks[identity(i)]
		if len(bs) < 2 {
			continue
		}
		r.Benchmarks[at[it.Benchmark]].SharedVideoItems++
		for _, other := range bs {
			if other != it.Benchmark {
				videos[[2]string{it.Benchmark, other}]++
			}
		}
	}
	r.Videos = sortedFlows(videos)
}
