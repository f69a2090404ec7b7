package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testConfig() *Config {
	return &Config{Format: FormatVersion, Items: []Input{{Name: "a.jsonl", SHA256: "00", Size: 1}}, Seed: 1, Embedder: "lexical"}
}

// TestClaimResumesOnlyTheSameConfiguration: a new directory is claimed and
// gets config.json; the same configuration again is a resume; another is
// refused naming the keys that differ, and one of another format naming
// the format, without config.json being rewritten.
func TestClaimResumesOnlyTheSameConfiguration(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := testConfig()
	if resumed, err := Claim(dir, cfg); err != nil || resumed {
		t.Fatalf("first claim: resumed %v, %v", resumed, err)
	}
	stored, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if want, _ := EncodeConfig(cfg); err != nil || string(stored) != string(want) {
		t.Fatalf("config.json %q, %v; want %q", stored, err, want)
	}
	if resumed, err := Claim(dir, cfg); err != nil || !resumed {
		t.Fatalf("second claim: resumed %v, %v", resumed, err)
	}
	other := testConfig()
	other.Seed, other.Limit = 2, 5
	_, err = Claim(dir, other)
	var cm *ConfigMismatchError
	if !errors.As(err, &cm) || cm.Format != "" || !reflect.DeepEqual(cm.Fields, []string{"limit", "seed"}) {
		t.Errorf("claim with another seed and limit: %v; want a mismatch of limit and seed", err)
	}
	old := testConfig()
	old.Format = "vidscreen-run/2"
	_, err = Claim(dir, old)
	if !errors.As(err, &cm) || cm.Format != `"`+FormatVersion+`"` {
		t.Errorf("claim by another format: %v; want a mismatch naming the stored format", err)
	}
	for _, want := range []string{FormatVersion, "another version of vidscreen", "new --out"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ConfigFile)); string(after) != string(stored) {
		t.Errorf("a refused claim rewrote config.json")
	}
}

// TestClaimRefusesADirectoryWithoutARun: files other than the lock and an
// interrupted write's temporary file make a directory no run directory.
func TestClaimRefusesADirectoryWithoutARun(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files []string
		ok    bool
	}{
		{"an empty directory is claimed", nil, true},
		{"the lock alone is no reason to refuse", []string{LockFile}, true},
		{"a torn config.json is removed", []string{".config.json.tmp-123"}, true},
		{"another file refuses the directory", []string{"notes.txt"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				os.WriteFile(filepath.Join(dir, f), nil, 0o644)
			}
			_, err := Claim(dir, testConfig())
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNotRunDir)) {
				t.Fatalf("claim: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, ".config.json.tmp-123")); err == nil {
				t.Errorf("temporary file left")
			}
		})
	}
}

func TestDiffKeys(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		want []string
	}{
		{"equal objects differ nowhere", `{"a":1,"b":[1, 2]}`, `{"b":[1,2],"a":1}`, nil},
		{"a changed value", `{"a":1,"b":2}`, `{"a":1,"b":3}`, []string{"b"}},
		{"an added and a removed key", `{"a":1,"c":2}`, `{"a":1,"b":2}`, []string{"b", "c"}},
		{"no object is the whole file", `[1]`, `{"a":1}`, []string{"config.json"}},
	} {
		if got := DiffKeys([]byte(tt.a), []byte(tt.b)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLockRefusesASecondHolder: a locked directory is refused to a second
// lock until the first is released, and a file is no directory.
func TestLockRefusesASecondHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "in use by another vidscreen audit") {
		t.Errorf("second lock: %v", err)
	}
	unlock()
	unlock2, err := Lock(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	unlock2()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := Lock(file); !errors.Is(err, ErrNotRunDir) {
		t.Errorf("lock of a file: %v", err)
	}
}
