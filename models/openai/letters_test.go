package openai

import (
	"math"
	"testing"
)

// The floor is log(1e-6) exactly, the Video-Index authors' value
// (harness/solve.LogFloor is this constant).
func TestLogFloorIsLogOneInAMillion(t *testing.T) {
	if LogFloor != math.Log(1e-6) {
		t.Fatalf("LogFloor = %v, want log(1e-6) = %v", LogFloor, math.Log(1e-6))
	}
}
