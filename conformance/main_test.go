package conformance

import (
	"fmt"
	"os"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
)

// TestMain keeps FFmpeg's own log (libx264's statistics of the videos the
// tests encode) off the test output: only errors print.
func TestMain(m *testing.M) {
	if err := decode.SetLogLevel("error"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
