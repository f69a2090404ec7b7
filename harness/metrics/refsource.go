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
	// NearChance is the authors' reference_near_chance (levels.py): the
	// 32-frame s* is within the tolerance of chance. Where the 128-frame
	// probe does not rise above it (or scores fewer than
	// MinReferenceItems), s* stays the 32-frame one and the card's
	// breaking level is the first level that ran.
	NearChance bool `json:"reference_near_chance"`
	// Accuracy128 and N128 are the 128-frame probe's accuracy and the items
	// it scored, where it ran.
	Accuracy128 *float64 `json:"accuracy_128,omitempty"`
	N128        int      `json:"n_128,omitempty"`
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

// MinReferenceItems is the fewest items a reference must score on a
// benchmark for the card to give a breaking level, and for the 128-frame
// probe's accuracy to count: the Video-Index authors' minimum (levels.py,
// MIN_N = 30: "reference n < 30, no level").
const MinReferenceItems = paperMinN

// nearChanceDelta is the tolerance of reference_near_chance: the breaking
// level's main delta (Video-Index section 2).
const nearChanceDelta = 0.05

// WithReferenceSource sets a card's ReferenceSource and, where the source
// scored items at 32 frames, its reference_near_chance from the 32-frame
// s*, as the authors flag it whether or not the 128-frame probe then
// supplied s*.
func WithReferenceSource(c *Card, rs *ReferenceSource) {
	c.ReferenceSource = rs
	if rs != nil && rs.N32 > 0 {
		c.ReferenceNearChance = rs.NearChance
	}
}
