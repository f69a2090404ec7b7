package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A test reaches the data through its package's helpers, methods and
// variables, or through a package that imports shareddata; a test that
// names none of them is not listed.
func TestSharedTestsFollowsTheHelpers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"p.go": `package p

func Plain() int { return 1 }
`,
		"helpers_test.go": `package p

import (
	"testing"

	sd "github.com/vidscreen/vidscreen/internal/shareddata"
)

var dataDir = func(t testing.TB) string { return sd.Path(t) }

func videos(t *testing.T) string { return dataDir(t) + "/videos" }

type fixture struct{}

func (fixture) load(t *testing.T) string { return videos(t) }
`,
		"p_test.go": `package p

import "testing"

func TestViaHelper(t *testing.T) { _ = videos(t) }
func TestViaMethod(t *testing.T) { _ = fixture{}.load(t) }
func TestPlain(t *testing.T)     { _ = Plain() }
func TestTable(t *testing.T) {
	for _, f := range []func(*testing.T) string{videos} {
		_ = f(t)
	}
}
`,
		"x_test.go": `package p_test

import (
	"testing"

	"example.com/p"
	"example.com/reader"
)

func TestViaReader(t *testing.T) { reader.Load(t) }
func TestExternalPlain(t *testing.T) { p.Plain() }
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pk := pkg{ImportPath: "example.com/p", Dir: dir, GoFiles: []string{"p.go"}, TestGoFiles: []string{"helpers_test.go", "p_test.go"}, XTestGoFiles: []string{"x_test.go"}}
	got, err := sharedTests(pk, map[string]bool{sharedData: true, "example.com/reader": true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestTable", "TestViaHelper", "TestViaMethod", "TestViaReader"}
	if !slices.Equal(got, want) {
		t.Errorf("sharedTests = %v, want %v", got, want)
	}
}
