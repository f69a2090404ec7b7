package harness

import "encoding/json"

// An Item is one multiple-choice question about a video, as read from the
// benchmark's annotation files (the item schema of docs/audit.md).
type Item struct {
	ID        string   `json:"id"`
	Benchmark string   `json:"benchmark"`
	Video     string   `json:"video"`
	Question  string   `json:"question"`
	Options   []string `json:"options"`
	Answer    int      `json:"answer"` // 0-based index into Options
	Task      string   `json:"task"`
	// Duration is the clip length in seconds; nil when the source does not say.
	Duration *float64 `json:"duration"`
	// DurationCategory is the length the benchmark gives as a category
	// instead of seconds (Video-MME's "short" < 2 min, "medium" 4-15 min,
	// "long" 30-60 min); the cards break down by it and select groups by it
	// when the item has no length in seconds. Never turned into seconds.
	DurationCategory string `json:"duration_category,omitempty"`

	Group     string          `json:"group,omitempty"`      // capability group
	VideoPath string          `json:"video_path,omitempty"` // relative to the video root
	Start     *float64        `json:"start,omitempty"`      // clip bounds in seconds
	End       *float64        `json:"end,omitempty"`
	Meta      json.RawMessage `json:"meta,omitempty"`

	// Quality holds the item's data-quality flags, computed by the readers
	// from its options.
	Quality Quality `json:"-"`

	// Source names where the item was read, as "file:line" (or "file:row N"),
	// for error messages and provenance.
	Source string `json:"-"`

	// line and row are the 1-based position Source names (one of them 0).
	line, row int
}

// Chance is the accuracy of a uniform guess: 1/len(options) (0.5 for yes/no).
func (it *Item) Chance() float64 { return 1 / float64(len(it.Options)) }

// Key identifies an item across benchmarks: ids are unique only within one.
func (it *Item) Key() string { return it.Benchmark + "\x00" + it.ID }
