package models

import (
	"fmt"
	"sort"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// lengthBuckets are the padded lengths of text batches. Every sequence is
// padded to the smallest bucket that holds it, whatever else is in its
// batch, so a text's result never depends on its neighbours' lengths (the
// floating-point reduction order of attention depends on the padded
// length). Steps of about 1.5x keep padding under a third.
var lengthBuckets = []int{8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192}

// bucketLen returns the padded length for a sequence of n tokens, at most
// limit (the model's maximum length) and at least n.
func bucketLen(n, limit int) int {
	for _, b := range lengthBuckets {
		if b >= n {
			if limit > 0 && b > limit {
				return max(n, limit)
			}
			return b
		}
	}
	return n
}

// batchPlan groups sequence indices by bucket, then cuts each bucket into
// batches of at most maxRows, in index order within a bucket.
type batchPlan struct {
	length int   // padded length
	rows   []int // indices into the caller's sequences
}

func planBatches(lengths []int, limit, maxRows int) []batchPlan {
	if maxRows <= 0 {
		maxRows = 1
	}
	order := make([]int, len(lengths))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return bucketLen(lengths[order[a]], limit) < bucketLen(lengths[order[b]], limit)
	})
	var plans []batchPlan
	for _, i := range order {
		l := bucketLen(lengths[i], limit)
		n := len(plans)
		if n == 0 || plans[n-1].length != l || len(plans[n-1].rows) >= maxRows {
			plans = append(plans, batchPlan{length: l})
			n++
		}
		plans[n-1].rows = append(plans[n-1].rows, i)
	}
	return plans
}

// textTensors holds the padded int64 inputs of one text batch: ids padded
// on the right with pad, a 0/1 attention mask, zero token types and
// positions 0.. for real tokens (1 on padding, as HF does).
type textTensors struct {
	rows, length int
	ids, mask    []int64
	types, pos   []int64
}

func padTexts(seqs [][]int, length int, pad int) textTensors {
	t := textTensors{rows: len(seqs), length: length}
	n := len(seqs) * length
	t.ids, t.mask, t.types, t.pos = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for r, s := range seqs {
		for j := 0; j < length; j++ {
			k := r*length + j
			if j < len(s) {
				t.ids[k], t.mask[k], t.pos[k] = int64(s[j]), 1, int64(j)
			} else {
				t.ids[k], t.pos[k] = int64(pad), 1
			}
		}
	}
	return t
}

// padTextsLeft is padTexts with the padding on the left, so every row's
// last token is at the last position; positions count real tokens from 0,
// and padding gets 1, as HF's generate does for left-padded batches.
func padTextsLeft(seqs [][]int, length int, pad int) textTensors {
	t := textTensors{rows: len(seqs), length: length}
	n := len(seqs) * length
	t.ids, t.mask, t.types, t.pos = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for r, s := range seqs {
		off := length - len(s)
		for j := 0; j < length; j++ {
			k := r*length + j
			if j >= off {
				t.ids[k], t.mask[k], t.pos[k] = int64(s[j-off]), 1, int64(j-off)
			} else {
				t.ids[k], t.pos[k] = int64(pad), 1
			}
		}
	}
	return t
}

// feed creates the tensors the session asks for among input_ids,
// attention_mask, token_type_ids and position_ids.
func (t textTensors) feed(s *Session, in inputSet) error {
	shape := []int64{int64(t.rows), int64(t.length)}
	for _, x := range []struct {
		name string
		data []int64
	}{{"input_ids", t.ids}, {"attention_mask", t.mask}, {"token_type_ids", t.types}, {"position_ids", t.pos}} {
		if _, ok := s.Input(x.name); !ok {
			continue
		}
		v, err := int64Tensor(x.data, shape...)
		if err != nil {
			return fmt.Errorf("%s: %w", x.name, err)
		}
		in[x.name] = v
	}
	return nil
}

// emptyPast adds zero-length past_key_values.* inputs (and use_cache_branch
// = false) for a decoder run without a cache, sized from the model's
// declared head count and head size.
func emptyPast(s *Session, rows int, in inputSet) error {
	for _, x := range s.Inputs() {
		switch {
		case x.Name == "use_cache_branch":
			v, err := ort.NewTensor(ort.NewShape(1), []bool{false})
			if err != nil {
				return err
			}
			in[x.Name] = v
		case strings.HasPrefix(x.Name, "past_key_values."):
			if len(x.Shape) != 4 || x.Shape[1] < 0 || x.Shape[3] < 0 {
				return fmt.Errorf("%s: input %s has shape %v; want (batch, heads, past, head_size) with fixed heads and head size", s.Path(), x.Name, x.Shape)
			}
			v, err := floatTensor(nil, int64(rows), x.Shape[1], 0, x.Shape[3])
			if err != nil {
				return fmt.Errorf("%s: %w", x.Name, err)
			}
			in[x.Name] = v
		}
	}
	return nil
}
