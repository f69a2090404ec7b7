package letters

import (
	"strings"
	"testing"
)

func TestDefaultWording(t *testing.T) {
	t.Parallel()
	w := Default()
	for _, tc := range []struct {
		p    Parts
		want string
	}{
		{Parts{Kind: KindVisual, Question: " What colour? ", Options: []string{"red", "blue {options}"}, Frames: 8},
			"You are given 8 frame(s) sampled from a video. Answer the question based on these frames.\n\nQuestion: What colour?\nOptions:\nA. red\nB. blue {options}\nAnswer with the option letter only."},
		{Parts{Kind: KindOptionsOnly, Options: []string{"x", "y", "z"}},
			"You are given NO frames from the video and NO question text. Using only the answer options below, choose the option most likely to be correct.\n\nOptions:\nA. x\nB. y\nC. z\nAnswer with the option letter only."},
		{Parts{Kind: KindBlind, Question: "Why?", Options: []string{"x", "y"}},
			"You are given NO frames from the video. Answer the question from the text alone.\n\nQuestion: Why?\nOptions:\nA. x\nB. y\nAnswer with the option letter only."},
		{Parts{Kind: KindFrameCaptions, Question: "Who?", Options: []string{"x", "y"}, Captions: []string{"a dog", "a cat"}},
			"You are given short captions of 2 frames sampled from a video, one caption per frame, in frame order. You cannot see the video. Answer the question from these captions.\n\nFrame captions:\nFrame 1: a dog\nFrame 2: a cat\n\nQuestion: Who?\nOptions:\nA. x\nB. y\nAnswer with the option letter only."},
	} {
		got, err := w.User(tc.p)
		if err != nil || got != tc.want {
			t.Errorf("User(%+v) = %q, %v\nwant %q", tc.p, got, err, tc.want)
		}
		if p := New(tc.p); p.Text != tc.want+"\nAnswer:" || p.Options != len(tc.p.Options) || !p.Structured() {
			t.Errorf("New(%+v) = %+v", tc.p, p)
		}
	}
	if w.ID != DefaultID {
		t.Errorf("default ID %q", w.ID)
	}
}

func TestParseWording(t *testing.T) {
	t.Parallel()
	w, err := ParseWording("prompts.json", []byte(`{"prefill": "The answer is", "blind": "Q: {question}\n{options}"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Plain(Parts{Kind: KindBlind, Question: "Why?", Options: []string{"x", "y"}}); got != "Q: Why?\nA. x\nB. y\nThe answer is" {
		t.Errorf("plain %q", got)
	}
	if tpl, _ := w.Template(KindVisual); tpl != defaultTemplates[KindVisual] {
		t.Errorf("a kind not in the file changed: %q", tpl)
	}
	if !strings.HasPrefix(w.ID, "sha256:") || len(w.ID) != 7+64 || w.ID == Default().ID {
		t.Errorf("ID %q", w.ID)
	}
	w2, _ := ParseWording("p", []byte(`{"prefill": "The answer is", "blind": "Q: {question}\n{options}"}`))
	if w2.ID != w.ID {
		t.Errorf("the same bytes gave IDs %q and %q", w.ID, w2.ID)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"blnd": "{options}"}`, `unknown key "blnd"`},
		{`{"blind": null}`, "blind: want a string"},
		{`{"prefill": 3}`, "prefill: want a string"},
		{`{"blind": "{question} {opts}"}`, "unknown placeholder {opts}"},
		{`{"visual": "{question}"}`, "visual: the template has no {options}"},
		{`[1]`, "prompts.json"},
		{`null`, "want a JSON object"},
	} {
		_, err := ParseWording("prompts.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "prompts.json") {
			t.Errorf("ParseWording(%s) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}
