package tokenizer

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// TestCrossCheckJS compares ids and decoded text with the JavaScript port of
// the reference (npm @huggingface/tokenizers) on every question and option
// of the shared annotations. It runs only when VIDSCREEN_TOKENIZERS_JS
// names a folder where that package is installed
// (npm install --prefix DIR @huggingface/tokenizers@0.2.0) and node is on
// PATH.
func TestCrossCheckJS(t *testing.T) {
	modules := os.Getenv("VIDSCREEN_TOKENIZERS_JS")
	if modules == "" {
		t.Skip("VIDSCREEN_TOKENIZERS_JS not set")
	}
	texts := annotationTexts(t)
	dir := t.TempDir()
	textsFile := filepath.Join(dir, "texts.json")
	data, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(textsFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"bert_wordpiece_tokenizer.json", "clip_bpe_tokenizer.json"} {
		tok := loadShared(t, file)
		tokFile := shareddata.Path(t, "tokenizers", file)
		outFile := filepath.Join(dir, file+".out.json")
		cmd := exec.Command("node", filepath.Join("testdata", "crosscheck.mjs"), modules, tokFile, textsFile, outFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		raw, err := os.ReadFile(outFile)
		if err != nil {
			t.Fatal(err)
		}
		var js []struct {
			IDs     []int  `json:"ids"`
			Decoded string `json:"decoded"`
		}
		if err := json.Unmarshal(raw, &js); err != nil {
			t.Fatal(err)
		}
		// The port leaves the file's truncation and padding out.
		tok.SetTruncation(nil)
		tok.SetPadding(nil)
		bad := 0
		for i, s := range texts {
			enc, err := tok.Encode(s, true)
			if err != nil {
				t.Fatal(err)
			}
			want := js[i].IDs
			got := enc.IDs
			if !slices.Equal(got, want) {
				bad++
				if bad <= 10 {
					t.Errorf("%s: Encode(%q) = %v, port gives %v", file, s, got, want)
				}
			}
			if dec := tok.Decode(enc.IDs, true); dec != js[i].Decoded {
				bad++
				if bad <= 10 {
					t.Errorf("%s: Decode of %q = %q, port gives %q", file, s, dec, js[i].Decoded)
				}
			}
		}
		t.Logf("%s: %d texts, %d differences", file, len(texts), bad)
	}
}

// annotationTexts returns every distinct question and option of the
// shared annotations, in file order.
func annotationTexts(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(shareddata.Path(t), "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no %s", filepath.Join(shareddata.Path(t), "*.jsonl"))
	}
	sort.Strings(files)
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; sc.Scan(); line++ {
			var item struct {
				Question string   `json:"question"`
				Options  []string `json:"options"`
			}
			if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
				t.Fatalf("%s:%d: %v", f, line, err)
			}
			for _, s := range append([]string{item.Question}, item.Options...) {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		fh.Close()
	}
	return out
}
