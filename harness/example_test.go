package harness_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

func ExampleJSONLReader() {
	in := `{"id": "q1", "benchmark": "Demo", "video": "v1", "question": "Is it raining?", "options": ["yes", "no"], "answer": 1, "task": "", "duration": null}
{"id": "q2", "benchmark": "Demo", "video": "v1", "question": "What falls?", "options": ["snow", "rain", ""], "answer": 0, "task": "", "duration": 4}
`
	r := harness.NewJSONLReader(strings.NewReader(in), "demo.jsonl")
	for {
		it, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Printf("%s: %q, chance %.2f\n", it.Source, it.Question, it.Chance())
	}
	// Output:
	// demo.jsonl:1: "Is it raining?", chance 0.50
	// demo.jsonl:2: field options[2]: empty option text
}
