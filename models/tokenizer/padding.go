package tokenizer

import (
	"errors"
	"fmt"
	"slices"
)

// Direction says which end of a sequence truncation cuts or padding fills.
type Direction int

const (
	Right Direction = iota
	Left
)

func (d Direction) String() string {
	if d == Left {
		return "Left"
	}
	return "Right"
}

// TruncationStrategy says which text of a pair loses tokens.
type TruncationStrategy int

const (
	// LongestFirst removes tokens from the longer text first.
	LongestFirst TruncationStrategy = iota
	OnlyFirst
	OnlySecond
)

func (s TruncationStrategy) String() string {
	switch s {
	case OnlyFirst:
		return "OnlyFirst"
	case OnlySecond:
		return "OnlySecond"
	}
	return "LongestFirst"
}

// Truncation limits encodings to MaxLength tokens, special tokens
// included. Overflowing tokens are dropped (the reference's stride only
// shapes the overflow, which this package does not return).
type Truncation struct {
	MaxLength int
	Strategy  TruncationStrategy
	Direction Direction
	Stride    int
}

// Padding extends encodings with a pad token: to Length when it is
// positive, else to the longest encoding of the batch; then up to a
// multiple of PadToMultipleOf when that is positive.
type Padding struct {
	Length          int
	PadToMultipleOf int
	Direction       Direction
	PadID           int
	PadTypeID       int
	PadToken        string
}

var errSequenceTooShort = errors.New("truncation: a sequence is shorter than the tokens to remove")

// truncate applies t to a and b (b may be nil), keeping maxLen tokens.
func truncate(a, b *Encoding, t *Truncation, maxLen int) error {
	if maxLen <= 0 {
		cut(a, 0, t.Direction)
		if b != nil {
			cut(b, 0, t.Direction)
		}
		return nil
	}
	total := a.Len()
	if b != nil {
		total += b.Len()
	}
	if total <= maxLen {
		return nil
	}
	remove := total - maxLen
	switch t.Strategy {
	case LongestFirst:
		if b == nil {
			cut(a, total-remove, t.Direction)
			return nil
		}
		// As the reference: the shorter text keeps its length if it fits
		// in half; otherwise both get half (the second the odd token).
		n1, n2 := a.Len(), b.Len()
		swapped := n1 > n2
		if swapped {
			n1, n2 = n2, n1
		}
		if n1 > maxLen {
			n2 = n1
		} else {
			n2 = max(n1, maxLen-n1)
		}
		if n1+n2 > maxLen {
			n1 = maxLen / 2
			n2 = n1 + maxLen%2
		}
		if swapped {
			n1, n2 = n2, n1
		}
		cut(a, n1, t.Direction)
		cut(b, n2, t.Direction)
		return nil
	default:
		target := a
		if t.Strategy == OnlySecond {
			if b == nil {
				return errors.New("truncation: strategy OnlySecond needs a pair of texts")
			}
			target = b
		}
		if target.Len() <= remove {
			return fmt.Errorf("%w (strategy %v, max length %d)", errSequenceTooShort, t.Strategy, t.MaxLength)
		}
		cut(target, target.Len()-remove, t.Direction)
		return nil
	}
}

// cut keeps n tokens of e, from the end that d does not name.
func cut(e *Encoding, n int, d Direction) {
	if n >= e.Len() {
		return
	}
	if d == Left {
		e.keep(e.Len()-n, e.Len())
	} else {
		e.keep(0, n)
	}
}

// padLength is the length p pads encodings of longest length to.
func (p *Padding) padLength(longest int) int {
	n := longest
	if p.Length > 0 {
		n = p.Length
	}
	if m := p.PadToMultipleOf; m > 0 && n%m != 0 {
		n += m - n%m
	}
	return n
}

// pad extends e to n tokens; longer encodings are left as they are.
func (p *Padding) pad(e *Encoding, n int) {
	k := n - e.Len()
	if k <= 0 {
		return
	}
	n0 := e.Len()
	for range k {
		e.push(p.PadID, p.PadTypeID, p.PadToken, [2]int{}, true)
		e.AttentionMask[len(e.AttentionMask)-1] = 0
	}
	if p.Direction == Left {
		// Move the tokens to the end and the padding to the front.
		rotate(e.IDs, n0)
		rotate(e.TypeIDs, n0)
		rotate(e.AttentionMask, n0)
		rotate(e.SpecialTokensMask, n0)
		rotate(e.Tokens, n0)
		rotate(e.Offsets, n0)
	}
}

// rotate turns s = x y, with len(x) = n, into y x.
func rotate[T any](s []T, n int) {
	slices.Reverse(s[:n])
	slices.Reverse(s[n:])
	slices.Reverse(s)
}
