package tokenizer

// Encoding is the result of encoding one text (or pair of texts): the
// inputs a transformer takes, plus what is needed to map tokens back to the
// text. All slices have the same length.
type Encoding struct {
	IDs           []int
	TypeIDs       []int // segment: 0 for the first text, 1 for the second of a pair
	AttentionMask []int // 1 for real tokens, 0 for padding
	Tokens        []string
	// Offsets are byte ranges [start, end) into the text the token came
	// from (the first or second of a pair, see TypeIDs); special and
	// padding tokens have [0, 0].
	Offsets           [][2]int
	SpecialTokensMask []int // 1 for tokens added by post-processing and padding
}

// newEncoding returns an empty encoding with room for n tokens in six
// slices carved from three allocations.
func newEncoding(n int) *Encoding {
	ints := make([]int, 4*n)
	return &Encoding{
		IDs:               ints[0:0:n],
		TypeIDs:           ints[n : n : 2*n],
		AttentionMask:     ints[2*n : 2*n : 3*n],
		SpecialTokensMask: ints[3*n : 3*n : 4*n],
		Tokens:            make([]string, 0, n),
		Offsets:           make([][2]int, 0, n),
	}
}

// reset empties e, keeping its memory.
func (e *Encoding) reset() {
	e.IDs = e.IDs[:0]
	e.TypeIDs = e.TypeIDs[:0]
	e.AttentionMask = e.AttentionMask[:0]
	e.Tokens = e.Tokens[:0]
	e.Offsets = e.Offsets[:0]
	e.SpecialTokensMask = e.SpecialTokensMask[:0]
}

// Len is the number of tokens, padding included.
func (e *Encoding) Len() int { return len(e.IDs) }

func (e *Encoding) push(id, typeID int, tok string, off [2]int, special bool) {
	e.IDs = append(e.IDs, id)
	e.TypeIDs = append(e.TypeIDs, typeID)
	e.AttentionMask = append(e.AttentionMask, 1)
	e.Tokens = append(e.Tokens, tok)
	e.Offsets = append(e.Offsets, off)
	sp := 0
	if special {
		sp = 1
	}
	e.SpecialTokensMask = append(e.SpecialTokensMask, sp)
}

// appendRange appends tokens [i, j) of o.
func (e *Encoding) appendRange(o *Encoding, i, j int) {
	e.IDs = append(e.IDs, o.IDs[i:j]...)
	e.TypeIDs = append(e.TypeIDs, o.TypeIDs[i:j]...)
	e.AttentionMask = append(e.AttentionMask, o.AttentionMask[i:j]...)
	e.Tokens = append(e.Tokens, o.Tokens[i:j]...)
	e.Offsets = append(e.Offsets, o.Offsets[i:j]...)
	e.SpecialTokensMask = append(e.SpecialTokensMask, o.SpecialTokensMask[i:j]...)
}

// keep truncates e to tokens [i, j).
func (e *Encoding) keep(i, j int) {
	e.IDs = e.IDs[i:j]
	e.TypeIDs = e.TypeIDs[i:j]
	e.AttentionMask = e.AttentionMask[i:j]
	e.Tokens = e.Tokens[i:j]
	e.Offsets = e.Offsets[i:j]
	e.SpecialTokensMask = e.SpecialTokensMask[i:j]
}
