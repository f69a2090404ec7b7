package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// The package's shared fixtures: the expensive inputs of the whole-command
// tests (a rendered world, a models directory from `models init`, an audit
// of the world), each built once per test binary on first use, under
// fixtureRoot, which TestMain creates and removes. Tests read a fixture and
// never write to it; a test that changes one (a video, models.json) works
// on its own copy (copyTree). TestMain fails the run if a fixture's files
// changed under the tests.
//
// A fixture that fails to build fails every test that asks for it, each
// with the cause; one that needs the development data or ONNX Runtime is
// skipped by each test before it is built, naming what is missing.

// fixtureRoot is the folder TestMain makes for the fixtures.
var fixtureRoot string

// fixture is one shared input, built by build into its own folder under
// fixtureRoot the first time a test asks for it (tests asking at once wait
// for that build).
type fixture struct {
	name  string
	build func(dir string) error

	once    sync.Once
	dir     string
	err     error
	listing string // the folder's files as built, checked again by TestMain
}

// fixtures lists every fixture, for TestMain's check.
var fixtures []*fixture

func newFixture(name string, build func(dir string) error) *fixture {
	f := &fixture{name: name, build: build}
	fixtures = append(fixtures, f)
	return f
}

// get returns the fixture's folder, building it on first use.
func (f *fixture) get() (string, error) {
	f.once.Do(func() {
		if fixtureRoot == "" {
			f.err = errors.New("no fixture folder (TestMain did not run)")
			return
		}
		f.dir = filepath.Join(fixtureRoot, f.name)
		if f.err = os.MkdirAll(f.dir, 0o755); f.err != nil {
			return
		}
		if f.err = f.build(f.dir); f.err != nil {
			return
		}
		f.listing, f.err = treeListing(f.dir)
	})
	return f.dir, f.err
}

// path is get for a test: a failed build fails t with its cause.
func (f *fixture) path(t *testing.T) string {
	t.Helper()
	dir, err := f.get()
	if err != nil {
		t.Fatalf("fixture %s: %v", f.name, err)
	}
	return dir
}

// treeListing lists every file under dir with its mode, size and
// modification time: a test that writes to a fixture changes it.
func treeListing(dir string) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(&b, "%s %v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	return b.String(), err
}

// copyTree copies the folder src to dst (which must not exist), keeping
// symbolic links as links: for a test that changes a fixture.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copying fixture %s: %v", src, err)
	}
}

func TestMain(m *testing.M) {
	var err error
	if fixtureRoot, err = os.MkdirTemp("", "vidscreen-fixtures-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	var changed []string
	for _, f := range fixtures {
		if f.listing == "" {
			continue
		}
		if now, err := treeListing(f.dir); err != nil || now != f.listing {
			changed = append(changed, f.name)
		}
	}
	if len(changed) > 0 {
		sort.Strings(changed)
		fmt.Fprintf(os.Stderr, "FAIL: tests changed the shared fixtures %s (copy a fixture before changing it)\n", strings.Join(changed, ", "))
		code = 1
	}
	os.RemoveAll(fixtureRoot)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// smallWorld is a small planted-shortcut world (docs/world.md): 9
// generated videos of 2 to 4 s, its items and its models, with no outside
// data.
var smallWorld = newFixture("world", func(dir string) error {
	if code, _, stderr := runCmd("world", "--out", dir, "--videos", "9", "--min-duration", "2", "--max-duration", "4"); code != 0 {
		return fmt.Errorf("world: exit %d: %s", code, stderr)
	}
	return nil
})

// worldFixture returns smallWorld's items, video root and models, to read.
func worldFixture(t *testing.T) (items, root, modelsDir string) {
	t.Helper()
	needORT(t)
	dir := smallWorld.path(t)
	return filepath.Join(dir, "items.jsonl"), dir, filepath.Join(dir, "models")
}

// worldFixtureCopy is worldFixture in a folder of t's own, to change.
func worldFixtureCopy(t *testing.T) (items, root, modelsDir string) {
	t.Helper()
	needORT(t)
	dir := filepath.Join(t.TempDir(), "world")
	copyTree(t, smallWorld.path(t), dir)
	return filepath.Join(dir, "items.jsonl"), dir, filepath.Join(dir, "models")
}

// smallWorldAudit is the audit of smallWorld at all five levels with its
// own models and the default flags (--quiet), as an unsharded reference.
var smallWorldAudit = newFixture("world-audit", func(dir string) error {
	world, err := smallWorld.get()
	if err != nil {
		return err
	}
	out := filepath.Join(dir, "run")
	if code, _, stderr := runAudit("--items", filepath.Join(world, "items.jsonl"), "--videos", world, "--models", filepath.Join(world, "models"), "--out", out, "--quiet"); code != 0 {
		return fmt.Errorf("audit of the world: exit %d\n%s", code, stderr)
	}
	return nil
})

// worldAudit returns the run directory of smallWorldAudit, to read: the
// audit of worldFixture's items, videos and models with no other flag (so
// the copy and siblings families, bare yes/no items, are set aside: the
// shards of TestMergeWorld and TestSlurmRecipe are audited so too).
func worldAudit(t *testing.T) string {
	t.Helper()
	needORT(t)
	return filepath.Join(smallWorldAudit.path(t), "run")
}

// demoAuditFixture is the audit, with the default flags (--quiet), of the
// first 60 items of each embedded default file (demoSubset(t, 60)).
var demoAuditFixture = newFixture("demo-audit", func(dir string) error {
	b, err := demo.Head(60)
	if err != nil {
		return err
	}
	items := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(items, b, 0o644); err != nil {
		return err
	}
	if code, _, stderr := runAudit("--items", items, "--out", filepath.Join(dir, "run"), "--quiet"); code != 0 {
		return fmt.Errorf("audit of the first 60 items of each default file: exit %d\n%s", code, stderr)
	}
	return nil
})

// demoAudit returns demoAuditFixture's items file and run directory, to
// read.
func demoAudit(t *testing.T) (items, run string) {
	t.Helper()
	dir := demoAuditFixture.path(t)
	return filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "run")
}

// audioWorld is the world of the audio tests: seed 3, 20 videos of 3 to 6
// s (the audio family among them).
var audioWorld = newFixture("audio-world", func(dir string) error {
	if code, _, stderr := runCmd("world", "--out", dir, "--seed", "3", "--videos", "20", "--min-duration", "3", "--max-duration", "6", "--quiet"); code != 0 {
		return fmt.Errorf("world: exit %d: %s", code, stderr)
	}
	return nil
})

// initModels is the models directory `models init` writes (every role:
// text_embed, dup_confirm, lm_reader, image_text, captioner, vlm_reader,
// screen_reader and the rest).
var initModels = newFixture("models-init", func(dir string) error {
	if code, _, stderr := runModels("", "init", filepath.Join(dir, "models")); code != 0 {
		return fmt.Errorf("models init: exit %d: %s", code, stderr)
	}
	return nil
})

// initModelsDir returns initModels' directory, to read.
func initModelsDir(t *testing.T) string {
	t.Helper()
	needORT(t)
	return filepath.Join(initModels.path(t), "models")
}

// initModelsCopy is initModelsDir in a folder of t's own, to change.
func initModelsCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "models")
	copyTree(t, initModelsDir(t), dir)
	return dir
}

// nextqaItems returns the first n items of the development data's NExT-QA
// file, each as a JSON object, to be given a video_path.
func nextqaItems(n int) ([]map[string]any, error) {
	path, err := shareddata.Lookup("nextqa.jsonl")
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for len(out) < n && sc.Scan() {
		var it map[string]any
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, it)
	}
	return out, sc.Err()
}

// writeItems writes items as JSON lines to path.
func writeItems(path string, items []map[string]any) error {
	var out bytes.Buffer
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}
