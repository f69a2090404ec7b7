package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/release"
)

// DatasetFile is the lmms-eval task directory's local dataset: one JSON
// document per released item, in release order (formats' lmms-eval-task
// reads it back).
const DatasetFile = "dataset.jsonl"

// A document is one line of DatasetFile. Every line has every key, each
// always of one type (a string, never null, where the item has nothing),
// so that the datasets library infers one schema for the file; meta is the
// item's meta object as a JSON string for the same reason (its keys vary
// from item to item).
type document struct {
	ItemID      string   `json:"item_id"`
	Release     string   `json:"vidscreen_release"`
	Video       string   `json:"video"`
	VideoPath   string   `json:"video_path"`
	Question    string   `json:"question"`
	Options     []string `json:"options"`
	Answer      string   `json:"answer"`
	AnswerIndex int      `json:"answer_index"`
	Task        string   `json:"task"`
	Group       string   `json:"group"`
	Duration    *float   `json:"duration"`
	Start       *float   `json:"start"`
	End         *float   `json:"end"`
	BlindOrders [][]int  `json:"blind_orders"`
	Meta        string   `json:"meta"`

	// DurationCategory is the item's duration_category (Video-MME's
	// short/medium/long), "" where it gives none.
	DurationCategory string `json:"duration_category"`
}

// documents are r's items as lmms-eval documents.
func documents(r *release.Release) ([]document, error) {
	docs := make([]document, len(r.Items))
	for k, it := range r.Items {
		if len(it.Options) > answer.MaxOptions || it.Answer < 0 || it.Answer >= len(it.Options) {
			return nil, fmt.Errorf("item %s: %d options, answer %d: not a released item", it.ID, len(it.Options), it.Answer)
		}
		docs[k] = document{ItemID: it.ID, Release: r.Name, Video: it.Video, VideoPath: it.VideoPath,
			Question: it.Question, Options: it.Options, Answer: answer.Letter(it.Answer), AnswerIndex: it.Answer,
			Task: it.Task, Group: it.Group, Duration: floatOf(it.Duration), DurationCategory: it.DurationCategory, Start: floatOf(it.Start), End: floatOf(it.End),
			BlindOrders: blindOrders(seed(r), it.ID, len(it.Options))}
		if len(it.Meta) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, it.Meta); err != nil {
				return nil, fmt.Errorf("item %s: meta: %w", it.ID, err)
			}
			docs[k].Meta = b.String()
		}
	}
	return docs, nil
}

// seed is the release's seed: the blind orders follow it, as the released
// option order does.
func seed(r *release.Release) uint64 {
	if r.Lockfile == nil {
		return 0
	}
	return r.Lockfile.Seed
}

// writeDocuments writes docs as JSON Lines.
func writeDocuments(docs []document) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, fmt.Errorf("item %s: %w", d.ItemID, err)
		}
	}
	return b.Bytes(), nil
}

// groups lists the items' capability groups, sorted, without "".
func groups(items []*harness.Item) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if it.Group != "" && !seen[it.Group] {
			seen[it.Group] = true
			out = append(out, it.Group)
		}
	}
	slices.Sort(out)
	return out
}

// A float is written with a decimal point ("40.0", not "40"): the datasets
// library infers a column's type from its values, and a column of
// integers and fractions must read as one type of number.
type float float64

func (f float) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(f), 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return []byte(s), nil
}

func floatOf(p *float64) *float {
	if p == nil {
		return nil
	}
	f := float(*p)
	return &f
}
