package features

import "strings"

// emptyCaptions counts the frames of v that its plan captions and whose
// caption is empty or blank, whether the captioner wrote it now or the cache
// kept it. A captioner whose ids its tokenizer does not know decodes them to
// "" without any error; the caption attackers then see nothing of those
// frames, so Extract counts them for the run to report (issue 24).
func emptyCaptions(v *Video, plan *planSampler) (int, error) {
	if plan == nil || !plan.captions() {
		return 0, nil
	}
	want, err := plan.captionTimes(v.Info, 0)
	if err != nil {
		return 0, err
	}
	n := 0
	for r, t := range v.Times {
		if want[t] && (v.Captions == nil || strings.TrimSpace(v.Captions[r]) == "") {
			n++
		}
	}
	return n, nil
}
