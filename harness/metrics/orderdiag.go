package metrics

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
	// Conditions are half1, half2, off1, off2, in that order.
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
