package metrics

import "testing"

// TestIsBlindReader: m is s* minus the stronger of the blind readers
// (Video-Index 3.3): blind-reader and every further blind model the user
// lists, and nothing that reads more than the text or learns from the pool.
func TestIsBlindReader(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"blind-reader":          true,
		"blind-reader:qwen3-8b": true,
		"blind-reader#2":        true,
		"options-reader":        false,
		"question-match":        false,
		"blind-readers":         false,
		"knn-vote":              false,
	} {
		if got := isBlindReader(name); got != want {
			t.Errorf("isBlindReader(%q) = %v, want %v", name, got, want)
		}
	}
}
