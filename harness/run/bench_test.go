package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// sharedData finds the full development data (../shared/data beside the
// repository, or $VIDSCREEN_DATA): the four files of issue 2, 29,712 items.
func sharedData() []string {
	dir := os.Getenv("VIDSCREEN_DATA")
	if dir == "" {
		var err error
		if dir, err = shareddata.Lookup(); err != nil {
			return nil
		}
	}
	var out []string
	for _, f := range []string{"nextqa.jsonl", "socialiq2.jsonl", "star.jsonl", "videohallucer.jsonl"} {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			return nil
		}
		out = append(out, p)
	}
	return out
}

// BenchmarkAudit runs the whole audit (read, embed, every attacker of the
// option, text and pool levels, duplicates, cards, reports) on the full
// development data when present, else on the embedded default, and reports
// items/s overall and per attacker (items x orders answered per second of
// that attacker's own time).
func BenchmarkAudit(b *testing.B) {
	opt := Options{Items: sharedData(), Seed: 1, Workers: 2}
	if opt.Items == nil {
		opt.FS, opt.Items = demo.FS(), demo.Items()
		b.Log("full data not found (set VIDSCREEN_DATA); using the embedded default")
	}
	var items int
	per := map[string][2]float64{} // items, seconds
	stages := map[string]float64{}
	for i := 0; b.Loop(); i++ {
		opt.Out = filepath.Join(b.TempDir(), "run")
		res, err := Audit(context.Background(), opt)
		if err != nil {
			b.Fatal(err)
		}
		items += res.Items
		for _, st := range res.Stages {
			stages[st.Name] += st.Time.Seconds()
		}
		for _, a := range res.Attackers {
			p := per[a.Name]
			per[a.Name] = [2]float64{p[0] + float64(a.Items), p[1] + a.Time.Seconds()}
		}
	}
	b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/audit")
	for name, sec := range stages {
		b.ReportMetric(sec/float64(b.N), "s-"+name)
	}
	for name, p := range per {
		if p[1] > 0 {
			b.ReportMetric(math.Round(p[0]/p[1]), name+"-items/s")
		}
	}
}
