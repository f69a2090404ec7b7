package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClaimTakesTheRecordedServedModes: a run that recorded its served
// readers' modes in config.json (WriteConfig) is resumed by the same
// configuration, which takes the modes, and config.json keeps its bytes;
// a configuration that differs in anything else is still refused, naming
// that key alone; one that names other modes is refused naming
// served_modes.
func TestClaimTakesTheRecordedServedModes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Claim(dir, testConfig()); err != nil {
		t.Fatal(err)
	}
	modes := []ServedMode{{Role: "lm_reader", Model: "m", Mode: "logprobs", Prefill: true}}
	cfg := testConfig()
	cfg.ServedModes = modes
	if err := WriteConfig(dir, cfg); err != nil {
		t.Fatal(err)
	}
	stored, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	if !bytes.Contains(stored, []byte(`"served_modes"`)) {
		t.Fatalf("config.json without served_modes:\n%s", stored)
	}

	again := testConfig()
	resumed, err := Claim(dir, again)
	if err != nil || !resumed || !slices.Equal(again.ServedModes, modes) {
		t.Errorf("resumed %v (%v), modes %+v: want a resume that takes %+v", resumed, err, again.ServedModes, modes)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, ConfigFile)); !bytes.Equal(now, stored) {
		t.Errorf("config.json changed on resume:\n%s", now)
	}

	other := testConfig()
	other.Seed = 2
	var mismatch *ConfigMismatchError
	if _, err := Claim(dir, other); !errors.As(err, &mismatch) || !slices.Equal(mismatch.Fields, []string{"seed"}) {
		t.Errorf("another seed: %v, want a mismatch of seed alone", err)
	}
	generate := testConfig()
	generate.ServedModes = []ServedMode{{Role: "lm_reader", Model: "m", Mode: "generate"}}
	if _, err := Claim(dir, generate); !errors.As(err, &mismatch) || !slices.Equal(mismatch.Fields, []string{"served_modes"}) {
		t.Errorf("other modes: %v, want a mismatch of served_modes", err)
	}
}
