package vidomni_test

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness/vidomni"
)

// A caption is split into sentences, a verifier's reply in the paper's
// format is scored against the labels.
func Example() {
	caption := `A man in a red jacket, approx. 1.8 m tall, walks in. He lifts a "No Entry" sign. Then he sits.`
	sentences := vidomni.Split(caption)
	for i, s := range sentences {
		fmt.Printf("sentence_%d: %s\n", i+1, s)
	}

	labels := `{"pair": "p1", "video": "v.mp4", "source": "m1", "type": 2, "duration": 95, "sentences": [
		{"text": "A man in a red jacket, approx. 1.8 m tall, walks in.", "label": "Correct"},
		{"text": "He lifts a \"No Entry\" sign.", "label": "Incorrect", "categories": ["Action"]},
		{"text": "Then he sits.", "label": "Incorrect", "categories": ["Order"]}]}`
	pairs, err := vidomni.ReadLabels(strings.NewReader(strings.ReplaceAll(labels, "\n", "")), "labels.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	verdicts, err := vidomni.ReadVerdicts(strings.NewReader(`{"pair": "p1", "verifier": "m2", "reply": "{\"sentence_1\": 1, \"sentence_2\": 1, \"sentence_3\": 0}\nSentence 1 ..."}`), "verdicts.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := vidomni.Score(pairs, verdicts, vidomni.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := s.Verifiers["m2"]
	fmt.Printf("precision %.2f recall %.2f F1 %.2f over %d pair\n", v.Precision, v.Recall, v.F1, v.Pairs)
	fmt.Printf("Action recall %.0f, Order recall %.0f\n", s.ByCategory["m2"]["Action"].Recall, s.ByCategory["m2"]["Order"].Recall)
	// Output:
	// sentence_1: A man in a red jacket, approx. 1.8 m tall, walks in.
	// sentence_2: He lifts a "No Entry" sign.
	// sentence_3: Then he sits.
	// precision 0.50 recall 0.50 F1 0.50 over 1 pair
	// Action recall 1, Order recall 0
}
