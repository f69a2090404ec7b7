package textembed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// DefaultDim is the width of Lexical rows. Feature hashing with random signs
// keeps inner products unbiased, and the noise collisions add to the cosine
// of two unit rows has a standard deviation of about 1/sqrt(dim) (Weinberger
// et al., "Feature Hashing for Large Scale Multitask Learning", ICML 2009,
// section 2): 0.044 at 512, far below the gap between the 0.90
// near-duplicate threshold and the cosine of merely related questions. Every
// similarity join, neighbour search and regression step costs time linear in
// the width, and on the development data (29,712 items) going from 1024 to
// 512 columns changed the near-duplicate pairs at 0.90 from 8,693 to 8,550
// and the k-NN vote's final-stage accuracy on STAR from 0.398 to 0.394, while
// the copy and k-NN attackers took 24 s of CPU instead of 39 s.
const DefaultDim = 512

// dfBits sizes the document-frequency table: 2^20 slots indexed by bits that
// the embedding index does not use, so two features share an IDF only about
// once in a million pairs, far rarer than they share an embedding column.
const dfBits = 20

// charWeight is the share of the character n-gram block in the final row:
// the cosine of two Lexical rows is about the mean of their word-level and
// character-level cosines, so spelling variants ("tidied"/"tidy") and word
// order both count, neither alone.
const charWeight = 0.5

// Lexical embeds texts by hashed word unigrams and bigrams and character 3-
// and 4-grams, each weighted by sublinear term frequency (1 + log tf) times a
// smoothed inverse document frequency, hashed into Dim signed columns, the word
// block and the character block normalised separately, mixed half and half and
// normalised again. It needs no model and no training labels: Fit reads the
// run's texts (questions and options, never gold answers) for the IDF.
//
// The zero value is not usable; call NewLexical. A Lexical is safe for
// concurrent Embed calls once Fit has returned.
type Lexical struct {
	dim   int
	docs  int
	df    []uint32 // len 1<<dfBits, nil before Fit
	dfSum uint64   // a hash of df, naming the fit
}

// NewLexical returns an unfitted embedder of the given width (DefaultDim when
// dim <= 0). Before Fit every feature has IDF 1.
func NewLexical(dim int) *Lexical {
	if dim <= 0 {
		dim = DefaultDim
	}
	return &Lexical{dim: dim}
}

// Name says what the embedder is, with its parameters and a hash of its fit,
// so that caches keyed by it never mix two configurations or two corpora.
func (l *Lexical) Name() string {
	if l.df == nil {
		return fmt.Sprintf("lexical-w12-c34-d%d", l.dim)
	}
	return fmt.Sprintf("lexical-w12-c34-d%d-idf%d-%016x", l.dim, l.docs, l.dfSum)
}

// Dim returns the width of the rows.
func (l *Lexical) Dim() int { return l.dim }

// Fit counts, for every feature, the number of texts that contain it; the IDF
// of a feature is then log((1+N)/(1+df)) + 1 (the smoothed IDF of
// scikit-learn's TfidfVectorizer). Fit replaces any earlier fit.
func (l *Lexical) Fit(texts []string) {
	// Each worker counts its share of the texts into its own table; the sums
	// are integers, so the result does not depend on the split.
	workers := min(runtime.GOMAXPROCS(0), len(texts)/1024+1)
	tables := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range tables {
		lo, hi := w*len(texts)/workers, (w+1)*len(texts)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			df := make([]uint32, 1<<dfBits)
			var f featurizer
			for _, t := range texts[lo:hi] {
				f.reset(t)
				hs := append(f.words, f.chars...)
				slices.Sort(hs)
				hs = slices.Compact(hs)
				for _, h := range hs {
					df[h&(1<<dfBits-1)]++
				}
				f.words = hs[:0] // reuse the merged buffer
			}
			tables[w] = df
		}()
	}
	wg.Wait()
	df := tables[0]
	for _, t := range tables[1:] {
		for k, c := range t {
			df[k] += c
		}
	}
	l.df = df
	l.docs = len(texts)
	h := uint64(len(texts))
	for _, c := range df {
		h = (h ^ uint64(c)) * 1099511628211
	}
	l.dfSum = h
}

// Embed returns one unit row per text (a zero row for a text without letters
// or digits). Rows are computed independently, so the result does not depend
// on how the work is split over goroutines.
func (l *Lexical) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	m := kernels.NewMatrix(len(texts), l.dim)
	workers := runtime.GOMAXPROCS(0)
	if workers > len(texts)/256+1 {
		workers = len(texts)/256 + 1
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		lo, hi := w*len(texts)/workers, (w+1)*len(texts)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			var f featurizer
			word := make([]float64, l.dim)
			char := make([]float64, l.dim)
			for i := lo; i < hi; i++ {
				if (i-lo)%1024 == 0 {
					if err := ctx.Err(); err != nil {
						errs[w] = err
						return
					}
				}
				f.reset(texts[i])
				l.accumulate(word, f.words)
				l.accumulate(char, f.chars)
				mix(m.Row(i), word, char)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("lexical embedding: %w", err)
		}
	}
	return m, nil
}

// accumulate sets v to the unit TF-IDF vector of the feature hashes hs
// (sorted in place to count term frequencies).
func (l *Lexical) accumulate(v []float64, hs []uint64) {
	clear(v)
	slices.Sort(hs)
	dim := uint64(l.dim)
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j] == hs[i] {
			j++
		}
		h := hs[i]
		w := (1 + math.Log(float64(j-i))) * l.idf(h)
		if h>>63 != 0 {
			w = -w
		}
		v[((h>>dfBits)&(1<<43-1))%dim] += w
		i = j
	}
	var s float64
	for _, x := range v {
		s += x * x
	}
	if s > 0 {
		inv := 1 / math.Sqrt(s)
		for k := range v {
			v[k] *= inv
		}
	}
}

func (l *Lexical) idf(h uint64) float64 {
	if l.df == nil {
		return 1
	}
	return math.Log(float64(1+l.docs)/float64(1+l.df[h&(1<<dfBits-1)])) + 1
}

// mix writes the normalised blend of the word and character blocks into row.
func mix(row []float32, word, char []float64) {
	var s float64
	for k := range row {
		x := (1-charWeight)*word[k] + charWeight*char[k]
		s += x * x
	}
	if s == 0 {
		clear(row)
		return
	}
	inv := 1 / math.Sqrt(s)
	for k := range row {
		row[k] = float32(((1-charWeight)*word[k] + charWeight*char[k]) * inv)
	}
}

// A featurizer lists the hashed features of one text, reusing its buffers.
type featurizer struct {
	norm   []byte   // lower-cased words joined by single spaces
	padded []byte   // norm with a space at either end
	ends   []int    // end offset of each word in norm
	words  []uint64 // word unigram and bigram hashes
	chars  []uint64 // character n-gram hashes
}

// Feature kinds salt the hash so that the word "abc" and the trigram "abc"
// land in different columns.
const (
	kindUnigram = 0x9e3779b97f4a7c15
	kindBigram  = 0xc2b2ae3d27d4eb4f
	kindChar    = 0x165667b19e3779f9
)

func (f *featurizer) reset(text string) {
	f.norm, f.ends = f.norm[:0], f.ends[:0]
	f.words, f.chars = f.words[:0], f.chars[:0]
	inWord := false
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !inWord && len(f.norm) > 0 {
				f.ends = append(f.ends, len(f.norm))
				f.norm = append(f.norm, ' ')
			}
			inWord = true
			f.norm = utf8.AppendRune(f.norm, unicode.ToLower(r))
			continue
		}
		inWord = false
	}
	if len(f.norm) == 0 {
		return
	}
	f.ends = append(f.ends, len(f.norm))
	start := 0
	prev := -1
	for k, end := range f.ends {
		f.words = append(f.words, hash(kindUnigram, f.norm[start:end]))
		if k > 0 {
			f.words = append(f.words, hash(kindBigram, f.norm[prev:end]))
		}
		prev, start = start, end+1
	}
	// Character n-grams run over " text " so that word starts and ends are
	// features of their own; they count bytes, which for the Latin-script
	// benchmarks here are characters.
	f.padded = append(append(append(f.padded[:0], ' '), f.norm...), ' ')
	padded := f.padded
	for n := 3; n <= 4; n++ {
		for i := 0; i+n <= len(padded); i++ {
			f.chars = append(f.chars, hash(kindChar+uint64(n), padded[i:i+n]))
		}
	}
}

// hash is 64-bit FNV-1a over b, salted by kind and finished with the
// SplitMix64 mixer so that every bit (the sign, the column, the IDF slot) is
// usable on its own.
func hash(kind uint64, b []byte) uint64 {
	h := uint64(14695981039346656037) ^ kind
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// A BenchmarkLexical is the lexical embedder of one benchmark: fitted on its
// own texts, it embeds its items (Items, indices into the run's items).
type BenchmarkLexical struct {
	Benchmark string
	Lexical   *Lexical
	Items     []int
}

// LexicalPerBenchmark fits one Lexical of width dim per benchmark of items,
// on that benchmark's ItemTexts, and lists them by benchmark name. Fitting
// per benchmark keeps each benchmark's rows, and every figure computed from
// them, independent of which other benchmarks share the run.
func LexicalPerBenchmark(items []*harness.Item, dim int) []BenchmarkLexical {
	out := BenchmarkItems(items)
	for k := range out {
		out[k].Fit(items, dim)
	}
	return out
}

// BenchmarkItems lists the items of each benchmark, by benchmark name, with
// no embedder fitted yet: a caller that embeds one benchmark at a time fits
// each when it needs it (Fit) and lets it go, holding one fitted table
// (4 MiB) instead of one per benchmark (400 MiB for a pool of 100).
func BenchmarkItems(items []*harness.Item) []BenchmarkLexical {
	at := map[string]int{}
	var out []BenchmarkLexical
	for i, it := range items {
		k, ok := at[it.Benchmark]
		if !ok {
			k = len(out)
			at[it.Benchmark] = k
			out = append(out, BenchmarkLexical{Benchmark: it.Benchmark})
		}
		out[k].Items = append(out[k].Items, i)
	}
	slices.SortFunc(out, func(a, b BenchmarkLexical) int { return strings.Compare(a.Benchmark, b.Benchmark) })
	return out
}

// Fit sets b.Lexical to a Lexical of width dim fitted on the ItemTexts of
// b's items (indices into items).
func (b *BenchmarkLexical) Fit(items []*harness.Item, dim int) {
	fit := make([]string, len(b.Items))
	for j, i := range b.Items {
		fit[j] = ItemText(items[i])
	}
	b.Lexical = NewLexical(dim)
	b.Lexical.Fit(fit)
}
