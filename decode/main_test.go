package decode

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// The damaged-file tests make FFmpeg log every concealed macroblock.
	if err := SetLogLevel("fatal"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
