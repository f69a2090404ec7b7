package vidomni

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// VerificationInstruction is the paper's sentence-wise verification prompt
// (appendix C.1, figure 14), word for word; VerificationPrompt appends the
// caption.
const VerificationInstruction = `You are an expert in Video Hallucination Detection. You are given a video and a caption that consists of multiple sentences. Your task is to evaluate each sentence individually to determine if it contains a hallucination based on the visual evidence.
For each sentence, assign a binary label (0 or 1) according to the following definition:
- Label 1: The sentence contains a hallucination. This means it describes something not present or incorrect regarding the video.
- Label 0: The sentence is faithful to the video. This means it correctly describes the visual content.
Please first output the dictionary of labels before explaining the reason for your judgment.
Output format requirements:
1) First line must be a valid JSON dictionary with keys sentence_1, sentence_2, ... and values 0 or 1.
2) Then explain the reason for each sentence.
Caption:`

// VerificationPrompt is the paper's prompt for one caption: the
// instruction, then the sentences numbered as the reply's keys number them
// ("Sentence 1: ...", one a line, as in the paper's figure 2).
func VerificationPrompt(sentences []string) string {
	var b strings.Builder
	b.WriteString(VerificationInstruction)
	for i, s := range sentences {
		fmt.Fprintf(&b, "\nSentence %d: %s", i+1, strings.TrimSpace(s))
	}
	return b.String()
}

// ErrUnparsed is wrapped by every error of ParseReply.
var ErrUnparsed = errors.New("reply not in the prompt's format")

// ParseReply reads the labels of an n-sentence caption from a verifier's
// reply in the format of the paper's prompt: the first line a JSON
// dictionary {"sentence_1": 0|1, ..., "sentence_n": 0|1}, then free text.
//
// It accepts what careful readers of that format accept and nothing more:
// leading blank lines and a Markdown code fence (```json) before the
// dictionary; text before the dictionary on its first line ("Labels:
// {...}"); a dictionary that runs over several lines; values 0, 1, "0",
// "1", false, true; keys in any case, with a space instead of the
// underscore. Everything else is an error wrapping ErrUnparsed that says
// why: no dictionary, invalid JSON, a key that is not sentence_k with k in
// 1..n, a value that is not binary, or a sentence without a label. A reply
// is never half-read: either every sentence gets its label or none does.
func ParseReply(reply string, n int) ([]int8, error) {
	s := strings.TrimLeft(reply, " \t\r\n")
	if strings.HasPrefix(s, "```") {
		// Drop the fence line (```json).
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = strings.TrimLeft(s[i+1:], " \t\r\n")
		} else {
			s = ""
		}
	}
	if s == "" {
		return nil, fmt.Errorf("%w: empty reply", ErrUnparsed)
	}
	first := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		first = s[:i]
	}
	open := strings.IndexByte(first, '{')
	if open < 0 {
		return nil, fmt.Errorf("%w: the first line %q holds no JSON dictionary", ErrUnparsed, clip(first, 60))
	}
	dec := json.NewDecoder(strings.NewReader(s[open:]))
	dec.UseNumber()
	var dict map[string]json.RawMessage
	if err := dec.Decode(&dict); err != nil {
		return nil, fmt.Errorf("%w: the dictionary is not valid JSON: %v", ErrUnparsed, err)
	}
	labels := make([]int8, n)
	got := make([]bool, n)
	for key, raw := range dict {
		k, ok := sentenceKey(key)
		if !ok {
			return nil, fmt.Errorf("%w: key %q is not sentence_K", ErrUnparsed, clip(key, 40))
		}
		if k < 1 || k > n {
			return nil, fmt.Errorf("%w: key %q is beyond the caption's %d sentences", ErrUnparsed, key, n)
		}
		b, ok := binaryValue(raw)
		if !ok {
			return nil, fmt.Errorf("%w: %s is %s; want 0 or 1", ErrUnparsed, key, clip(string(raw), 20))
		}
		if got[k-1] {
			return nil, fmt.Errorf("%w: sentence_%d labelled twice", ErrUnparsed, k)
		}
		labels[k-1], got[k-1] = b, true
	}
	for i, ok := range got {
		if !ok {
			return nil, fmt.Errorf("%w: no label for sentence_%d of %d", ErrUnparsed, i+1, n)
		}
	}
	return labels, nil
}

// sentenceKey reads k from "sentence_k" (any case; "sentence k" too).
func sentenceKey(key string) (int, bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	var rest string
	switch {
	case strings.HasPrefix(k, "sentence_"):
		rest = k[len("sentence_"):]
	case strings.HasPrefix(k, "sentence "):
		rest = k[len("sentence "):]
	default:
		return 0, false
	}
	v, err := strconv.Atoi(rest)
	if err != nil || rest == "" || rest[0] == '+' || rest[0] == '-' {
		return 0, false
	}
	return v, true
}

// FormatReply writes labels in the format ParseReply reads: the dictionary
// on the first line, keys in order, as a reply that follows the paper's
// prompt would begin (for tools and tests that make replies).
func FormatReply(labels []int8) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"sentence_%d": %d`, i+1, l)
	}
	b.WriteByte('}')
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
