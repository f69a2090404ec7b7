package metrics

import "slices"

// OrderDiagnostics are the temporal diagnostics of Video-Index's sweep
// (001, Table 17; 002, section 3.6): vlm_reader reads the clip's uniform
// frames in order (the base), then only the first or second half of the
// clip (half1, half2), then the uniform grid shifted by a third and two
// thirds of its step (off1, off2). They interpret how much of the video and
// which frames a score needs; they are not attacks, and no level's eps or
// breaking level counts them.
type OrderDiagnostics struct {
	// Model names vlm_reader's weights; Frames is the frame count of every
	// condition.
	Model  string `json:"model"`
	Frames int    `json:"frames"`
	// N and Accuracy are the base condition's: the items it answered and
	// its accuracy over them.
	N        int      `json:"n"`
	Accuracy *float64 `json:"accuracy"`
	// Conditions are half1, half2, off1, off2, then shuffled and tenth
	// when the order level's shuffled-frames-reader and
	// contiguous-tenth-reader ran: the same model on the same 32 frames
	// shuffled, and on 32 frames of one contiguous tenth (Video-Index 3.6).
	Conditions []OrderCondition `json:"conditions"`
}

// An OrderCondition is one diagnostic condition: its accuracy over the N
// items it answered, and its retention, the accuracy over the items both
// it and the base answered divided by the base's accuracy on those same
// items (001: "retention divides probe accuracy by 32-frame accuracy on
// the same items"); null when the base gets none of them right.
type OrderCondition struct {
	Name      string   `json:"name"`
	N         int      `json:"n"`
	Accuracy  *float64 `json:"accuracy"`
	Retention *float64 `json:"retention"`
}

// Retention returns the retention of the named condition ("shuffled",
// "tenth", "half1", ...), or false when the condition did not run or its
// retention is undefined.
func (d *OrderDiagnostics) Retention(name string) (float64, bool) {
	if d == nil {
		return 0, false
	}
	for _, c := range d.Conditions {
		if c.Name == name && c.Retention != nil {
			return *c.Retention, true
		}
	}
	return 0, false
}

// MedianRetention is the median over cards of the named condition's
// retention (Video-Index 3.6 reports shuffling's as "a median 96%"), with
// the number of cards that have one; false when none does.
func MedianRetention(cards []Card, name string) (float64, int, bool) {
	var rs []float64
	for k := range cards {
		if r, ok := cards[k].OrderDiagnostics.Retention(name); ok {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return 0, 0, false
	}
	slices.Sort(rs)
	m := len(rs) / 2
	if len(rs)%2 == 1 {
		return rs[m], len(rs), true
	}
	return round((rs[m-1] + rs[m]) / 2), len(rs), true
}
