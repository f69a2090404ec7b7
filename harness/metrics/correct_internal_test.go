package metrics

import "testing"

// correct's Holm family holds the pyramid's attackers that answered an
// item, and no screening step, further Video-Oasis model or cross-pool
// variant: those keep their own uncorrected test. Hand-worked: with
// knn-vote at p = 0.02 and copy at 0.6, the family {knn-vote, copy} rejects
// knn-vote at 0.05/2 = 0.025; had copy-xpool (p = 0.5) joined it, knn-vote
// would face 0.05/3 = 0.0167 and fail.
func TestHolmFamilyLeavesTheAsideOut(t *testing.T) {
	t.Parallel()
	rs := []AttackerResult{
		{Name: "knn-vote", Answered: 10, PValue: 0.02},
		{Name: "copy", Answered: 10, PValue: 0.6},
		{Name: "copy-xpool", Answered: 10, PValue: 0.5, CrossPool: true},
		{Name: "full-video-reader", Answered: 10, PValue: 0.01, ScreeningOnly: true},
		{Name: "blind-reader#2", Answered: 10, PValue: 0.03, DiagnosticOnly: true},
		{Name: "siblings", Answered: 0, PValue: 1},
	}
	correct(rs)
	want := []struct{ sig, uncorrected bool }{
		{true, true}, {false, false}, {false, false}, {false, true}, {false, true}, {false, false},
	}
	for k, w := range want {
		if rs[k].Significant != w.sig || rs[k].SignificantUncorrected != w.uncorrected {
			t.Errorf("%s: significant %v, uncorrected %v; want %v, %v", rs[k].Name, rs[k].Significant, rs[k].SignificantUncorrected, w.sig, w.uncorrected)
		}
	}
}
