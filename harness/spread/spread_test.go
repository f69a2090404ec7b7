package spread

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models/letters"
)

// hashEmbedder gives each text a row made from its bytes, NaN for texts
// starting with "nan", and reports the non-finite rows as ONNX does.
type hashEmbedder struct{}

func (hashEmbedder) Name() string { return "hash" }
func (hashEmbedder) Dim() int     { return 3 }
func (hashEmbedder) Embed(_ context.Context, texts []string) (*kernels.Matrix, error) {
	m := kernels.NewMatrix(len(texts), 3)
	var bad *textembed.NonFiniteError
	for i, t := range texts {
		if strings.HasPrefix(t, "nan") {
			if bad == nil {
				bad = &textembed.NonFiniteError{Model: "hash", Embeddings: m, Err: errors.New("NaN")}
			}
			bad.Rows, bad.Texts = append(bad.Rows, i), append(bad.Texts, t)
			continue
		}
		for j := range 3 {
			m.Row(i)[j] = float32(len(t)*(j+1)) + float32(t[0])
		}
	}
	if bad != nil {
		return nil, bad
	}
	return m, nil
}

func pool(t *testing.T, n int) *gpu.Pool {
	t.Helper()
	spec := gpu.Spec{CPUs: n}
	devs, _, err := gpu.Select(spec, gpu.Inventory{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := gpu.NewPool(devs, gpu.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTextEmbedderGivesOneDevicesRows(t *testing.T) {
	var texts []string
	for i := range 100 {
		texts = append(texts, fmt.Sprintf("text %d %s", i, strings.Repeat("x", i%7)))
	}
	want, err := hashEmbedder{}.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 4} {
		p := pool(t, n)
		e := &TextEmbedder{Pool: p, Work: "text_embed", Encoders: slices.Repeat([]textembed.TextEmbedder{hashEmbedder{}}, n)}
		got, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Data, want.Data) {
			t.Errorf("%d devices: rows differ from one encoder's", n)
		}
		total := 0
		for _, u := range p.Usage() {
			total += u.Done["text_embed"]
		}
		if total != len(texts) {
			t.Errorf("%d devices: %d texts counted, want %d", n, total, len(texts))
		}
	}
}

// Non-finite rows from several pieces come back as one error over the
// whole call, rows at their place, as one encoder would report them.
func TestTextEmbedderMergesNonFiniteRows(t *testing.T) {
	t.Parallel()
	texts := make([]string, 80)
	for i := range texts {
		texts[i] = fmt.Sprint("t", i)
	}
	texts[5], texts[40], texts[70] = "nan a", "nan b", "nan c"
	e := &TextEmbedder{Pool: pool(t, 2), Work: "text_embed", Encoders: []textembed.TextEmbedder{hashEmbedder{}, hashEmbedder{}}}
	_, err := e.Embed(context.Background(), texts)
	var nfe *textembed.NonFiniteError
	if !errors.As(err, &nfe) {
		t.Fatalf("got %v, want a NonFiniteError", err)
	}
	if !slices.Equal(nfe.Rows, []int{5, 40, 70}) || !slices.Equal(nfe.Texts, []string{"nan a", "nan b", "nan c"}) {
		t.Errorf("rows %v texts %q", nfe.Rows, nfe.Texts)
	}
	if nfe.Embeddings.Rows != 80 || nfe.Embeddings.Row(6)[0] == 0 || nfe.Embeddings.Row(40)[0] != 0 {
		t.Errorf("the merged embeddings do not hold every row with the bad ones zeroed")
	}
}

// lengthReader scores a prompt by its length, and fails on "boom".
type lengthReader struct{}

func (lengthReader) Encode(p letters.Prompt) ([]int, error) { return []int{len(p.Text)}, nil }
func (lengthReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for i, p := range ps {
		if p.Text == "boom" {
			return nil, errors.New("model failed")
		}
		out[i] = []float64{float64(len(p.Text)), -math.Log(float64(p.Options))}
	}
	return out, nil
}

func TestLetterReaderKeepsPromptOrder(t *testing.T) {
	t.Parallel()
	var prompts []letters.Prompt
	for i := range 37 {
		prompts = append(prompts, letters.Prompt{Text: strings.Repeat("p", i+1), Options: 2 + i%3})
	}
	want, _ := lengthReader{}.Score(context.Background(), prompts)
	for _, n := range []int{1, 2, 4} {
		r := &LetterReader{Pool: pool(t, n), Work: "lm_reader", Readers: slices.Repeat([]Letters{lengthReader{}}, n)}
		got, err := r.Score(context.Background(), prompts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("%d devices: prompt %d scored %v, want %v", n, i, got[i], want[i])
			}
		}
	}
	r := &LetterReader{Pool: pool(t, 2), Work: "lm_reader", Readers: []Letters{lengthReader{}, lengthReader{}}}
	if _, err := r.Score(context.Background(), append(prompts, letters.Prompt{Text: "boom", Options: 2})); err == nil {
		t.Error("a failing model gave no error")
	}
}

// A budget smaller than a whole piece makes the pieces smaller; the rows
// stay the same.
func TestPiecesFitTheBudget(t *testing.T) {
	t.Parallel()
	devs, _, _ := gpu.Select(gpu.Spec{CPUs: 2}, gpu.Inventory{})
	p, err := gpu.NewPool(devs, gpu.PoolConfig{CPUMemoryBudget: 5 * 100})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sizes []int
	err = cut(context.Background(), p, "w", 23, 8, 100, func(_ context.Context, slot, lo, hi int) error {
		if u := p.Usage()[slot]; u.Used > 500 {
			t.Errorf("device %d holds %d bytes over its budget of 500", slot, u.Used)
		}
		mu.Lock()
		sizes = append(sizes, hi-lo)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Max(sizes) != 5 {
		t.Errorf("piece sizes %v, want at most 5 (the budget over 100 bytes a unit)", sizes)
	}
}
