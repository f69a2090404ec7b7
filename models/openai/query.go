package openai

import (
	"fmt"
	"strings"
)

// A Query is one multiple-choice question put to a served reader, in the
// Video-Index authors' form (video_index/pool/logprobs.py): one user turn
// holding the frames as image parts, then one text part (what the reader is
// given, the question, the lettered options and an instruction to answer
// with the letter only), then an assistant turn prefilled with "Answer:" so
// that the next token is the letter. Frames come first so that the requests
// on one video share their longest prefix, which vLLM's and SGLang's prefix
// caches then compute once.
type Query struct {
	// ID labels the query in errors (an item and condition); it is not sent.
	ID string
	// Frames are the images, in the order shown; none for a text reader.
	// Encode them with EncodeFrame, once per frame, and share the *Image
	// between the queries of a video.
	Frames []*Image
	// Given is the one-line statement of what the reader is given ("You
	// are given 32 frames of a video, in order."; "You are given only the
	// answer options, not the question or the video.").
	Given string
	// Question is the question; empty for an options-only reader.
	Question string
	// Options are the answer options in their original order.
	Options []string
	// Order is the order the options are shown in: position j shows
	// Options[Order[j]] under letter j. Nil shows them as they are. The
	// options-only and blind readers ask each item under four seeded
	// orders, the caller's permutations.
	Order []int
}

// queryInstruction ends the text: answer with the letter, nothing else.
const queryInstruction = "Answer with the letter of the correct option only."

// prefillText is the assistant turn the reply continues.
const prefillText = "Answer:"

// letterNames are the option letters, A to P (harness/answer's 16).
const letterNames = "ABCDEFGHIJKLMNOP"

// check validates q and returns its order (the identity when q.Order is nil).
func (q *Query) check() ([]int, error) {
	n := len(q.Options)
	if n < 2 || n > len(letterNames) {
		return nil, fmt.Errorf("query %s: %d options; a query needs 2 to %d", q.ID, n, len(letterNames))
	}
	for i, o := range q.Options {
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

// letters are the first n option letters.
func letters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = letterNames[i : i+1]
	}
	return out
}

// text is the query's text part: given, question, options under their
// letters in order, instruction, one per line.
func (q *Query) text(order []int) string {
	var b strings.Builder
	if q.Given != "" {
		b.WriteString(strings.TrimSpace(q.Given))
		b.WriteByte('\n')
	}
	if q.Question != "" {
		b.WriteString("Question: ")
		b.WriteString(strings.TrimSpace(q.Question))
		b.WriteByte('\n')
	}
	b.WriteString("Options:\n")
	for j, o := range order {
		fmt.Fprintf(&b, "%c. %s\n", letterNames[j], strings.TrimSpace(q.Options[o]))
	}
	b.WriteString(queryInstruction)
	return b.String()
}

// messages is the chat: the user turn, and with prefill the assistant turn
// it continues.
func (q *Query) messages(order []int, prefill bool) []Message {
	if len(q.Frames) == 0 { // a text reader: content as a plain string, which every server reads
		msgs := []Message{{Role: "user", Content: q.text(order)}}
		if prefill {
			msgs = append(msgs, Message{Role: "assistant", Content: prefillText})
		}
		return msgs
	}
	parts := make([]Part, 0, len(q.Frames)+1)
	for _, f := range q.Frames {
		parts = append(parts, Part{Image: f})
	}
	parts = append(parts, Part{Text: q.text(order)})
	msgs := []Message{{Role: "user", Parts: parts}}
	if prefill {
		msgs = append(msgs, Message{Role: "assistant", Content: prefillText})
	}
	return msgs
}

// presented lists the options in the order shown.
func presented(options []string, order []int) []string {
	out := make([]string, len(order))
	for j, o := range order {
		out[j] = options[o]
	}
	return out
}
