// Command sharedtests lists the tests that read the development data
// (../shared/data): for each package of the module whose tests can reach
// package shareddata, one line with the package's import path and a -run
// pattern naming its Test, Fuzz and Example functions that do. .ci/run
// runs those alone in its copy without ../shared, where each must pass (on
// its committed fallback) or skip saying where it looked.
//
//	go run ./internal/shareddata/sharedtests [packages]
//
// The packages default to ./... . A test reads the data when its body, or
// a function, method or package-level variable of its package it names
// (transitively), names package shareddata or a package that imports it
// (attacktest.DataDir). The search is over names, without types: a name
// shared by a method of two types counts for both, so it may list a test
// that does not read the data, never miss one that does through its own
// package's code.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

const sharedData = "github.com/vidscreen/vidscreen/internal/shareddata"

// pkg is what go list says of one package.
type pkg struct {
	ImportPath   string
	Dir          string
	Deps         []string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
}

func main() {
	patterns := os.Args[1:]
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := list(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sharedtests:", err)
		os.Exit(1)
	}
	// readers are the non-test packages that reach shareddata.
	readers := map[string]bool{sharedData: true}
	for _, p := range pkgs {
		for _, d := range p.Deps {
			if d == sharedData {
				readers[p.ImportPath] = true
			}
		}
	}
	for _, p := range pkgs {
		tests, err := sharedTests(p, readers)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sharedtests:", err)
			os.Exit(1)
		}
		if len(tests) > 0 {
			fmt.Printf("%s ^(%s)$\n", p.ImportPath, strings.Join(tests, "|"))
		}
	}
}

// list runs go list -json over patterns.
func list(patterns []string) ([]pkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// marker is the node every reference to the data leads to.
const marker = "\x00shareddata"

var testName = regexp.MustCompile(`^(Test|Fuzz|Example)([^a-z]|$)`)

// sharedTests returns the sorted names of p's Test, Fuzz and Example
// functions that reach the data.
func sharedTests(p pkg, readers map[string]bool) ([]string, error) {
	fset := token.NewFileSet()
	refs := map[string]map[string]bool{} // node -> the names it refers to
	var roots []string
	add := func(from, to string) {
		if refs[from] == nil {
			refs[from] = map[string]bool{}
		}
		refs[from][to] = true
	}
	files := append(append(append(append([]string{}, p.GoFiles...), p.CgoFiles...), p.TestGoFiles...), p.XTestGoFiles...)
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		// imports: the names this file gives the packages that reach the
		// data, and the package under test itself (from an _test package).
		imports := map[string]string{}
		for _, im := range f.Imports {
			ip := strings.Trim(im.Path.Value, `"`)
			n := path.Base(ip)
			if im.Name != nil {
				n = im.Name.Name
			}
			switch {
			case readers[ip]:
				imports[n] = marker
			case ip == p.ImportPath:
				imports[n] = "" // p.F names F
			}
		}
		// walk records what node refers to in n.
		walk := func(node string, n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok {
						if to, ok := imports[id.Name]; ok {
							if to == marker {
								add(node, marker)
							} else {
								add(node, x.Sel.Name)
							}
							return false
						}
					}
					add(node, "."+x.Sel.Name) // a method or field of that name
				case *ast.Ident:
					add(node, x.Name)
				}
				return true
			})
		}
		isTest := strings.HasSuffix(name, "_test.go")
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				node := d.Name.Name
				if d.Recv != nil {
					node = "." + d.Name.Name
				} else if isTest && testName.MatchString(node) {
					roots = append(roots, node)
				}
				walk(node, d)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							walk(n.Name, s)
						}
					case *ast.TypeSpec:
						walk(s.Name.Name, s)
					}
				}
			}
		}
	}
	reaches := map[string]bool{}
	var visit func(node string, seen map[string]bool) bool
	visit = func(node string, seen map[string]bool) bool {
		if node == marker {
			return true
		}
		if r, ok := reaches[node]; ok {
			return r
		}
		if seen[node] {
			return false
		}
		seen[node] = true
		for to := range refs[node] {
			if to != node && visit(to, seen) {
				reaches[node] = true
				return true
			}
		}
		return false
	}
	var out []string
	for _, r := range roots {
		if visit(r, map[string]bool{}) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out, nil
}
