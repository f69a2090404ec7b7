package attack_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestSiblingsReadTheSameVideoOnly: a templated benchmark whose answer is
// carried by the same question on other videos. Siblings (L2: "sibling items
// of the same video") must not use it: it abstains throughout. It used to
// learn from same-question items of other videos too.
func TestSiblingsReadTheSameVideoOnly(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for i := 0; i < 200; i++ {
		q := fmt.Sprintf("What does person %d hold?", i%10)
		opts := []string{"a cup", "a towel", "a book", "a phone"}
		ans := (i % 10) % 4
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "T", Video: fmt.Sprint("video-", i), Question: q, Options: opts, Answer: ans})
	}
	s := inOrder(t, items)
	sib, err := attackerNamed(t, "siblings").Attack(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for p, pr := range sib {
		if !pr.Abstain {
			t.Fatalf("siblings answered item %d (no earlier item of its video) without abstaining", p)
		}
	}
}
