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
{"id": "q3", "benchmark": "Demo", "video": "v1", "question": "What now?", "options": ["go"], "answer": 0}
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
		fmt.Printf("%s: %q, chance %.2f, flags %v\n", it.Source, it.Question, it.Chance(), it.Quality.Names())
	}
	// Output:
	// demo.jsonl:1: "Is it raining?", chance 0.50, flags []
	// demo.jsonl:2: "What falls?", chance 0.33, flags [empty_option]
	// demo.jsonl:3: field options: fewer than two options: got 1
}
