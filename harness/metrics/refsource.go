package metrics

// A ReferenceSource says where a card's s* came from when a local model
// computed it (--reference-model) rather than a predictions file: the
// model, the frames it read, and why the 128-frame probe replaced the
// 32-frame protocol where it did (Video-Index 3.1: on long-video benchmarks
// where the 32-frame reference stays within the tolerance of chance, its
// 128-frame probe supplies the reference instead).
type ReferenceSource struct {
	// Model names the role that answered ("vlm_reader") and its weights.
	Model string `json:"model"`
	// Frames is the number of uniform frames of the answers s* is read
	// from: 32, or 128 where the probe supplied them.
	Frames int `json:"frames"`
	// Probe is true when the 128-frame probe supplied the reference.
	Probe bool `json:"probe"`
	// Accuracy32 is the 32-frame accuracy over the items it answered, and
	// N32 their number; with Chance they decide whether the probe runs.
	Accuracy32 *float64 `json:"accuracy_32"`
	N32        int      `json:"n_32"`
	// MeanVideoSeconds is the mean duration of the benchmark's videos (the
	// items' duration, else the decoded video's); LongVideo is true when it
	// is at least LongVideoSeconds (Video-Index 4: "videos average at least
	// 300 seconds").
	MeanVideoSeconds *float64 `json:"mean_video_seconds"`
	LongVideo        bool     `json:"long_video"`
	// Note says in words which reference was used and why.
	Note string `json:"note"`
}
