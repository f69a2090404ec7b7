package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// The tests share one runtime (ONNX Runtime loads once per process) and one
// directory of tiny models built by onnxbuild.
var fixtures struct {
	once sync.Once
	rt   *Runtime
	dir  string
	err  error

	bert    *onnxbuild.Encoder
	mpnet   *onnxbuild.Encoder
	clip    *onnxbuild.CLIP
	lm      *onnxbuild.Decoder
	capt    *onnxbuild.Captioner
	vlm     *onnxbuild.VLM
	lmSeed  uint64
	tmpRoot string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtures.tmpRoot != "" {
		os.RemoveAll(fixtures.tmpRoot)
	}
	os.Exit(code)
}

// tinyModels builds every tiny model once and returns the runtime and the
// models directory (with models.json).
func tinyModels(t testing.TB) (*Runtime, string) {
	t.Helper()
	fixtures.once.Do(func() {
		f := &fixtures
		f.rt, f.err = NewRuntime(RuntimeOptions{Threads: 2})
		if f.err != nil {
			return
		}
		f.tmpRoot, f.err = os.MkdirTemp("", "vidscreen-models-test-")
		if f.err != nil {
			return
		}
		f.dir = f.tmpRoot
		f.bert = onnxbuild.NewEncoder(onnxbuild.TinyBERT)
		mp := onnxbuild.TinyBERT
		mp.TypeVocab, mp.Seed = 0, 7 // MPNet exports have no token_type_ids
		f.mpnet = onnxbuild.NewEncoder(mp)
		f.clip = onnxbuild.NewCLIP(onnxbuild.TinyCLIP)
		f.lm = onnxbuild.NewLM(onnxbuild.TinyLM, 3)
		f.capt = onnxbuild.NewCaptioner(onnxbuild.TinyCaptionerVision, onnxbuild.TinyCaptionerText, 4)
		f.vlm = onnxbuild.NewVLM(onnxbuild.TinyVLMVision, onnxbuild.TinyVLMText, 5)
		steps := []error{
			f.bert.WriteDir(filepath.Join(f.dir, "bge")),
			f.mpnet.WriteDir(filepath.Join(f.dir, "mpnet")),
			f.clip.WriteDir(filepath.Join(f.dir, "clip")),
			f.lm.WriteLMDir(filepath.Join(f.dir, "lm"), true),
			f.capt.WriteDir(filepath.Join(f.dir, "captioner")),
			f.vlm.WriteDir(filepath.Join(f.dir, "vlm")),
		}
		for _, err := range steps {
			if err != nil {
				f.err = err
				return
			}
		}
		bert, clip := sharedTokenizer("bert_wordpiece_tokenizer.json"), sharedTokenizer("clip_bpe_tokenizer.json")
		for dir, src := range map[string]string{"bge": bert, "mpnet": bert, "clip": clip, "lm": bert, "captioner": bert, "vlm": bert} {
			data, err := os.ReadFile(src)
			if err == nil {
				err = os.WriteFile(filepath.Join(f.dir, dir, "tokenizer.json"), data, 0o644)
			}
			if err != nil {
				f.err = err
				return
			}
		}
		f.err = os.WriteFile(filepath.Join(f.dir, ManifestFile), []byte(tinyManifest), 0o644)
	})
	if fixtures.err != nil {
		t.Fatal(fixtures.err)
	}
	return fixtures.rt, fixtures.dir
}

const tinyManifest = `{
  "roles": {
    "image_text": {"dir": "clip", "max_length": 77},
    "text_embed": {"dir": "bge", "pooling": "cls"},
    "dup_confirm": {"dir": "mpnet", "pooling": "mean", "max_length": 128},
    "captioner": {"dir": "captioner", "max_new_tokens": 8},
    "lm_reader": {"dir": "lm", "max_length": 120},
    "vlm_reader": {"dir": "vlm", "max_length": 120}
  }
}
`

// sharedTokenizer finds one of the shared tokenizer files: in
// models/tokenizer/testdata, or in ../shared/data/tokenizers beside the
// repository. Without either it returns testdata/bert_wordpiece_small.json
// (see testdata/README.md).
func sharedTokenizer(name string) string {
	if p := fullTokenizer(name); p != "" {
		return p
	}
	return filepath.Join("testdata", "bert_wordpiece_small.json")
}

// fullTokenizer is sharedTokenizer without the fallback: "" when the real
// file is not there.
func fullTokenizer(name string) string {
	if p := filepath.Join("tokenizer", "testdata", name); exists(p) {
		return p
	}
	if p, err := shareddata.Lookup("tokenizers", name); err == nil {
		return p
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// randomIDs returns n sequences of lengths in [minLen, maxLen], each
// starting with first and ending with last, ids drawn from [lo, hi).
func randomIDs(seed uint64, n, minLen, maxLen, lo, hi, first, last int) [][]int {
	r := rand.New(rand.NewPCG(seed, 1))
	seqs := make([][]int, n)
	for i := range seqs {
		l := minLen + r.IntN(maxLen-minLen+1)
		s := []int{first}
		for len(s) < l-1 {
			s = append(s, lo+r.IntN(hi-lo))
		}
		seqs[i] = append(s, last)
	}
	return seqs
}

// closeTo reports the largest absolute difference between got and want, and
// fails when it is above tol.
func closeTo(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst := 0.0
	for i := range got {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if math.IsNaN(d) || d > worst {
			worst = d
		}
	}
	if !(worst <= tol) {
		t.Fatalf("%s: max |diff| %.3g > %.3g\n got %v\nwant %v", what, worst, tol, head(got), head(want))
	}
}

func head(v []float32) string {
	if len(v) > 6 {
		v = v[:6]
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// refPool pools reference rows (unpadded) the way sentence encoders do.
func refPool(m onnxbuild.Mat, p Pooling) []float32 {
	acc := make([]float64, m.Cols)
	if p == PoolCLS {
		for k, v := range m.Row(0) {
			acc[k] = float64(v)
		}
	} else {
		for r := range m.Rows {
			for k, v := range m.Row(r) {
				acc[k] += float64(v) / float64(m.Rows)
			}
		}
	}
	return unit(acc)
}

func itoa(i int) string { return fmt.Sprint(i) }
