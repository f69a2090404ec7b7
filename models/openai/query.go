package openai

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/models/letters"
)

// A Query is one multiple-choice question put to a served reader, in the
// Video-Index authors' form (video_index/pool/logprobs.py): one user turn
// holding the frames as image parts, then one text part (the prompt's
// parts in the reader's wording: letters.Wording), then an assistant turn
// prefilled with the wording's Prefill ("Answer:") so that the next token
// is the letter. Frames come first so that the requests on one video share
// their longest prefix, which vLLM's and SGLang's prefix caches then
// compute once.
type Query struct {
	// ID labels the query in errors (an item and condition); it is not sent.
	ID string
	// Frames are the images, in the order shown; none for a text reader.
	// Encode them with EncodeFrame, once per frame, and share the *Image
	// between the queries of a video.
	Frames []*Image
	// Prompt is what the reader is given; its Options are the answer
	// options in their original order (Order says how they are shown).
	Prompt letters.Parts
	// Wording words the prompt; nil is letters.Default().
	Wording *letters.Wording
	// Order is the order the options are shown in: position j shows
	// Options[Order[j]] under letter j. Nil shows them as they are. The
	// options-only and blind readers ask each item under four seeded
	// orders, the caller's permutations.
	Order []int
}

// letterNames are the option letters, A to P (harness/answer's 16).
const letterNames = "ABCDEFGHIJKLMNOP"

// check validates q and returns its order (the identity when q.Order is nil).
func (q *Query) check() ([]int, error) {
	n := len(q.Prompt.Options)
	if n < 2 || n > len(letterNames) {
		return nil, fmt.Errorf("query %s: %d options; a query needs 2 to %d", q.ID, n, len(letterNames))
	}
	for i, o := range q.Prompt.Options {
		if strings.TrimSpace(o) == "" {
			return nil, fmt.Errorf("query %s: option %d is empty", q.ID, i)
		}
	}
	for i, f := range q.Frames {
		if f == nil || len(f.Data) == 0 || f.MIME == "" {
			return nil, fmt.Errorf("query %s: frame %d is empty", q.ID, i)
		}
	}
	if q.Order == nil {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		return order, nil
	}
	if len(q.Order) != n {
		return nil, fmt.Errorf("query %s: order %v for %d options", q.ID, q.Order, n)
	}
	seen := make([]bool, n)
	for _, o := range q.Order {
		if o < 0 || o >= n || seen[o] {
			return nil, fmt.Errorf("query %s: order %v is not a permutation of 0..%d", q.ID, q.Order, n-1)
		}
		seen[o] = true
	}
	return q.Order, nil
}

// letterList is the first n option letters.
func letterList(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = letterNames[i : i+1]
	}
	return out
}

// wording is the query's wording.
func (q *Query) wording() *letters.Wording {
	if q.Wording == nil {
		return letters.Default()
	}
	return q.Wording
}

// text is the query's text part: its parts, the options in the order
// shown, in its wording.
func (q *Query) text(order []int) (string, error) {
	p := q.Prompt
	p.Options = presented(q.Prompt.Options, order)
	if len(q.Frames) > 0 && p.Kind == letters.KindVisual {
		p.Frames = len(q.Frames)
	}
	return q.wording().User(p)
}

// messages is the chat: the user turn, and with prefill the assistant turn
// it continues.
func (q *Query) messages(order []int, prefill bool) ([]Message, error) {
	text, err := q.text(order)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.ID, err)
	}
	if len(q.Frames) == 0 { // a text reader: content as a plain string, which every server reads
		msgs := []Message{{Role: "user", Content: text}}
		if prefill {
			msgs = append(msgs, Message{Role: "assistant", Content: q.wording().Prefill})
		}
		return msgs, nil
	}
	parts := make([]Part, 0, len(q.Frames)+1)
	for _, f := range q.Frames {
		parts = append(parts, Part{Image: f})
	}
	parts = append(parts, Part{Text: text})
	msgs := []Message{{Role: "user", Parts: parts}}
	if prefill {
		msgs = append(msgs, Message{Role: "assistant", Content: q.wording().Prefill})
	}
	return msgs, nil
}

// presented lists the options in the order shown.
func presented(options []string, order []int) []string {
	out := make([]string, len(order))
	for j, o := range order {
		out[j] = options[o]
	}
	return out
}
