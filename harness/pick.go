package harness

import (
	"fmt"
	"slices"
	"strings"
)

// A picker selects the items of a read: those of the wanted benchmarks, at
// most limit of each, the first ones in reading order.
type picker struct {
	want  map[string]bool // nil: every benchmark
	limit int
	count map[string]int // items kept per benchmark
}

func newPicker(opt ReadOptions) *picker {
	p := &picker{limit: opt.Limit, count: map[string]int{}}
	if len(opt.Benchmarks) > 0 {
		p.want = map[string]bool{}
		for _, b := range opt.Benchmarks {
			p.want[b] = true
		}
	}
	return p
}

func (p *picker) keep(it *Item) bool {
	if p.want != nil && !p.want[it.Benchmark] {
		p.count[it.Benchmark] += 0 // seen, for check's message
		return false
	}
	if p.limit > 0 && p.count[it.Benchmark] >= p.limit {
		return false
	}
	p.count[it.Benchmark]++
	return true
}

// check refuses a wanted benchmark that no file holds, naming those that
// they do hold.
func (p *picker) check(paths []string) error {
	var missing []string
	for b := range p.want {
		if p.count[b] == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	var have []string
	for b := range p.count {
		have = append(have, b)
	}
	slices.Sort(have)
	return &ParseError{File: strings.Join(paths, ", "), Field: "benchmark",
		Err: fmt.Errorf("%w: no items of benchmark %q (the files hold %q)", ErrNoItems, missing, have)}
}
