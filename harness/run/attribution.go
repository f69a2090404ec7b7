package run

// blindReaderName is the blind reader whose answers the error
// attribution's pre-classification rules read (metrics.ErrorAttributions):
// the first lm_reader entry's blind-reader when the run has it, else "".
// It is another model than the reference's (lm_reader, not vlm_reader nor
// a reference file's model), so its counts are context only.
func (a *audit) blindReaderName() string {
	for _, at := range a.attackers {
		if at.Name() == "blind-reader" {
			return at.Name()
		}
	}
	return ""
}
