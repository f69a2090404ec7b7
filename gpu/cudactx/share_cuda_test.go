//go:build cuda

package cudactx

import (
	"testing"

	"gorgonia.org/cu"
)

// TestSharePrimaryWithFFmpeg: with the device's primary context retained
// and current (active with the default flags), the flags become the ones
// hwcontext_cuda accepts, and the context keeps working: an upload and its
// free, twice. It skips when no GPU answers.
func TestSharePrimaryWithFFmpeg(t *testing.T) {
	c, err := Retain(0)
	if err != nil {
		t.Skipf("no GPU answers: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	unbind, err := c.Bind() // active, as Open leaves it
	if err != nil {
		t.Fatal(err)
	}
	unbind()
	if err := SharePrimaryWithFFmpeg(c.Ordinal()); err != nil {
		t.Fatal(err)
	}
	flags, active, err := c.Device().PrimaryCtxState()
	if err != nil {
		t.Fatal(err)
	}
	if flags != cu.SchedBlockingSync || active != 1 {
		t.Fatalf("primary context flags %#x, active %d; want CU_CTX_SCHED_BLOCKING_SYNC and active", uint(flags), active)
	}
	if err := SharePrimaryWithFFmpeg(c.Ordinal()); err != nil {
		t.Fatalf("a second call: %v", err)
	}
	_, free, err := c.UploadBytes(make([]byte, 4096))
	if err != nil {
		t.Fatal(err)
	}
	if err := free(); err != nil {
		t.Error(err)
	}
	if err := free(); err != nil {
		t.Errorf("a second free: %v", err)
	}
}

// TestRetainRefusesAMissingOrdinal: an ordinal past the devices found is
// refused by name, before any context is retained.
func TestRetainRefusesAMissingOrdinal(t *testing.T) {
	if err := InitError(); err != nil {
		t.Skipf("no GPU answers: %v", err)
	}
	if _, err := Retain(1 << 20); err == nil {
		t.Fatal("Retain(1<<20) succeeded")
	}
}
