package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The export writes the dataset class beside the table, byte for byte the
// embedded file.
func TestVLMEvalKitWritesDatasetClass(t *testing.T) {
	t.Parallel()
	r := testRelease(t)
	dir := t.TempDir()
	if err := VLMEvalKit(context.Background(), r, filepath.Join(dir, "rel.tsv")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, VLMEvalKitDatasetFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, vlmevalkitDataset) {
		t.Error("the dataset class written differs from the embedded one")
	}
}

// The class recognises a table by its header: its COLUMNS must be the
// columns the table is written with.
func TestVLMEvalKitDatasetColumns(t *testing.T) {
	t.Parallel()
	m := regexp.MustCompile(`(?s)\nCOLUMNS = \[(.*?)\]`).FindSubmatch(vlmevalkitDataset)
	if m == nil {
		t.Fatal("vidscreen_vlmeval.py has no COLUMNS list")
	}
	var cols []string
	for _, c := range regexp.MustCompile(`'([a-z_]+)'`).FindAllSubmatch(m[1], -1) {
		cols = append(cols, string(c[1]))
	}
	if !slices.Equal(cols, VLMEvalKitColumns) {
		t.Errorf("vidscreen_vlmeval.py COLUMNS %q, the table's %q", cols, VLMEvalKitColumns)
	}
}

// The class's reply parser, run with python3 on its own (VLMEvalKit is not
// needed for it): letters in the forms models write, an option quoted,
// and no letter read from a word.
func TestVLMEvalKitDatasetParsesReplies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, VLMEvalKitDatasetFile), vlmevalkitDataset, 0o644); err != nil {
		t.Fatal(err)
	}
	// Only the pure functions are executed: the module's imports need
	// VLMEvalKit.
	script := `import ast, os
src = open(os.path.join(sys.argv[1], "vidscreen_vlmeval.py")).read()
ns = {}
exec("import re", ns)
for node in ast.parse(src).body:
    if isinstance(node, ast.FunctionDef) and node.name in ("parse_letter", "parse_reply"):
        exec(ast.get_source_segment(src, node), ns)
cases = [["B", 4], ["(c) because", 4], ["The answer is D.", 4], ["Answer: a", 4], ["a dog runs", 4], ["E", 4], [None, 4], ["C) red", 3]]
out = [ns["parse_letter"](r, n) for r, n in cases]
out.append(ns["parse_reply"]("I think it is the red ball", ["blue ball", "red ball"]))
out.append(ns["parse_reply"]("ball", ["blue ball", "red ball"]))
print(json.dumps(out))
`
	var got []int
	runPython(t, dir, script, &got)
	want := []int{1, 2, 3, 0, -1, -1, -1, 2, 1, -1}
	if !slices.Equal(got, want) {
		t.Errorf("parsed %v, want %v", got, want)
	}
	if !strings.Contains(string(vlmevalkitDataset), "register(DATASET_CLASSES)") {
		t.Error("the file no longer says how to register it")
	}
}
