package run

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/report"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// writeReports is the reports stage: it writes the run's reports of cards,
// scores and dup (cards.json, cards.md, index.html, items.parquet,
// duplicates.parquet and the embedding matrices), each atomically, as the
// write stage, then completes the run (complete). It sets res.Cards and
// res.Outputs.
func (a *audit) writeReports(cards []metrics.Card, scores []metrics.ItemScore, dup *dups.Result, started time.Time) error {
	t0 := time.Now()
	cols := make([]report.Attacker, len(a.attackers))
	for i, at := range a.attackers {
		cols[i] = report.Attacker{Name: at.Name(), Level: at.Level()}
	}
	config, err := rundir.EncodeConfig(&a.cfg)
	if err != nil {
		return err
	}
	rep := &report.Report{Version: harness.Version, Config: config, Items: a.items, Attackers: cols, Cards: cards, Scores: scores, Duplicates: dup, Failures: a.failures, VideoSHA256: a.videoContent, VideoIdentity: a.videoIdentity}
	outs := []output{
		{rundir.CardsJSON, rep.WriteCardsJSON},
		{rundir.CardsMarkdown, rep.WriteMarkdown},
		{rundir.IndexHTML, rep.WriteHTML},
		{rundir.ItemsParquet, rep.WriteItemsParquet},
		{rundir.DuplicatesFile, rep.WriteDuplicatesParquet},
	}
	outs = append(outs, a.embeddingOutputs()...)
	outs = append(outs, a.answerCheckOutputs()...)
	wm := newMeter(a.opt.Progress, int64(len(outs)), "write", "files")
	a.res.Outputs = []string{rundir.ConfigFile}
	for _, out := range outs {
		if err := atomicfile.Write(filepath.Join(a.opt.Out, out.name), out.write); err != nil {
			wm.exit()
			return err
		}
		a.res.Outputs = append(a.res.Outputs, out.name)
		wm.add(1)
	}
	wm.finish()
	a.stage("write", t0)
	a.res.Cards = cards
	return a.complete(started)
}

// complete writes run.json and rundir.StagesFile, then the completion
// record over res.Outputs, last: until it is written, readers refuse the
// directory.
func (a *audit) complete(started time.Time) error {
	if err := a.writeRunJSON(started); err != nil {
		return err
	}
	if err := writeStages(&a.opt, a.res); err != nil {
		return err
	}
	return completion.Write(a.opt.Out, harness.Version, a.res.Outputs)
}

// runInfo is the content of run.json: what this process did and how long it
// took. It is rewritten by every run, resumed or not, and is the one output
// whose bytes differ between two runs of the same configuration.
type runInfo struct {
	Vidscreen string         `json:"vidscreen"`
	Commit    string         `json:"commit"`
	Started   time.Time      `json:"started"`
	Host      string         `json:"host"`
	Workers   int            `json:"workers"`
	Resumed   bool           `json:"resumed"`
	Units     int            `json:"units"`
	Stored    int            `json:"units_stored"`
	Dropped   int64          `json:"dropped_bytes"`
	Damaged   int            `json:"cache_files_damaged"` // checksums that disagreed: computed again
	Stages    []stageJSON    `json:"stages"`
	Attackers []attackerJSON `json:"attackers"`
	// Inputs is where the item files and video root were (absolute paths,
	// which config.json does not hold): vidscreen select reads them back.
	Inputs *Inputs `json:"inputs,omitempty"`
}

type stageJSON struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

type attackerJSON struct {
	Name     string  `json:"name"`
	Level    string  `json:"level"`
	Variants int     `json:"variants"`
	Items    int     `json:"items"`
	Seconds  float64 `json:"seconds"`
}

// writeRunJSON writes run.json.
func (a *audit) writeRunJSON(started time.Time) error {
	host, _ := os.Hostname()
	info := runInfo{Vidscreen: harness.Version, Commit: harness.Commit(), Started: started.UTC().Round(time.Second), Host: host,
		Workers: a.workers, Resumed: a.res.Resumed, Units: a.res.Units, Stored: a.res.UnitsStored, Dropped: a.res.DroppedBytes, Damaged: len(a.res.CacheDamaged),
		Inputs: runInputs(&a.opt)}
	for _, s := range a.res.Stages {
		info.Stages = append(info.Stages, stageJSON{s.Name, s.Time.Seconds()})
	}
	for _, t := range a.res.Attackers {
		info.Attackers = append(info.Attackers, attackerJSON{t.Name, t.Level.String(), t.Variants, t.Items, t.Time.Seconds()})
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(a.opt.Out, rundir.RunJSON), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}
