package run

import (
	"context"
	"sync"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/models/letters"
)

// A meter shows the progress of one stage: a bar on a terminal, log lines
// elsewhere (see package progress). With no reporter (--quiet) every method
// does nothing, so stages call it unconditionally.
type meter struct{ m *progress.Meter }

// newMeter starts a stage of total units (unknown when total <= 0) on r.
func newMeter(r *progress.Reporter, total int64, desc, unit string) meter {
	return meter{r.Stage(desc, total, unit)}
}

func (m meter) add(n int) { m.m.Add(int64(n)) }

func (m meter) finish() { m.m.Finish() }

// exit stops the stage where it is (on error or cancellation).
func (m meter) exit() { m.m.Exit() }

// An itemMeter counts work done as item x unit (each attacker on each order
// answers every item) but shows items: per units of work make one item.
// A user reads "1200/4000 items", not a count of attacker passes.
type itemMeter struct {
	meter
	per int64

	mu          sync.Mutex
	work, shown int64
}

func newItemMeter(r *progress.Reporter, items, per int, desc string) *itemMeter {
	return &itemMeter{meter: newMeter(r, int64(items), desc, "items"), per: int64(max(per, 1))}
}

// addWork counts n more (item, unit) answers.
func (m *itemMeter) addWork(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.work += int64(n)
	if v := m.work / m.per; v > m.shown {
		m.meter.add(int(v - m.shown))
		m.shown = v
	}
}

// unitProgress credits one unit's answers to an itemMeter: items already
// stored from an earlier run were counted at the start, so only answers
// past them move the meter, and a unit never counts more than its items.
type unitProgress struct {
	mu       sync.Mutex
	m        *itemMeter
	stored   int
	items    int
	answered int
}

// add counts n more items answered by the unit.
func (u *unitProgress) add(n int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	before := max(u.answered, u.stored)
	u.answered = min(u.answered+n, u.items)
	if after := max(u.answered, u.stored); after > before {
		u.m.addWork(after - before)
	}
}

// end counts whatever the unit did not report while it ran.
func (u *unitProgress) end() { u.add(u.items) }

// An orderMeter shows the permutation audit: answers, one per item, reader
// and option order. The lm_reader's prompts move it as they are scored
// (prompt, through promptCounter); each order, once done, counts what its
// prompts did not (answers read from the cache, the VLM readers reading
// the feature stage's scores, prompts too long to ask).
type orderMeter struct {
	meter
	mu      sync.Mutex
	counted int
}

func newOrderMeter(r *progress.Reporter, answers int) *orderMeter {
	return &orderMeter{meter: newMeter(r, int64(answers), "permutations", "answers")}
}

// prompt counts n prompts scored in the order under way.
func (m *orderMeter) prompt(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counted += n
	m.add(n)
}

// order ends an order of n items.
func (m *orderMeter) order(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rest := n - m.counted; rest > 0 {
		m.add(rest)
	}
	m.counted = 0
}

// A promptCounter hands the prompts the lm_reader attackers' models score
// to the meter of the stage asking them (none between stages), so that a
// reader stage shows prompts done, their rate and the time left.
type promptCounter struct {
	mu  sync.Mutex
	add func(n int)
}

// set makes add hear the prompts scored from now on (nil: none).
func (c *promptCounter) set(add func(n int)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add = add
}

func (c *promptCounter) count(n int) {
	c.mu.Lock()
	add := c.add
	c.mu.Unlock()
	if add != nil {
		add(n)
	}
}

// wrap returns r counting its scored prompts into c (nil for nil).
func (c *promptCounter) wrap(r attack.LetterReader) attack.LetterReader {
	if r == nil {
		return nil
	}
	return meteredReader{LetterReader: r, c: c}
}

// meteredReader is a LetterReader that counts the prompts it scores.
type meteredReader struct {
	attack.LetterReader
	c *promptCounter
}

func (r meteredReader) Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, error) {
	out, err := r.LetterReader.Score(ctx, prompts)
	if err == nil {
		r.c.count(len(prompts))
	}
	return out, err
}
