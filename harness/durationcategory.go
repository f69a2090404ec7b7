package harness

// DurationCategories are the duration categories vidscreen knows, shortest
// first: Video-MME's short (under 2 min), medium (4-15 min) and long
// (30-60 min), as lmms-eval's videomme utils.py lists them (VIDEO_TYPE).
// The cards list their per-category breakdown in this order and select
// groups items by them when an item has no length in seconds; an item's
// duration_category may hold any other word, which the cards still break
// down by.
func DurationCategories() []string { return []string{"short", "medium", "long"} }
