// Package predictions reads what a model answered on a benchmark, in the
// files the evaluation tools people already use write, and matches each
// answer to the audit's items.
//
// Three layouts are read (Read picks one from the file):
//
//   - the project's JSON Lines: {"id", "benchmark", "pred"}, pred a 0-based
//     option index or the reply as text;
//   - VLMEvalKit's result tables (.xlsx, .tsv, .csv): one row per question
//     with the columns index, question, A, B, ... (or candidates, a list
//     literal), answer and prediction, plus video, category and others;
//   - lmms-eval's samples: v0.2.0-v0.2.3's <task>.json, one object whose
//     logs list holds the samples; the samples files since
//     (samples_<task>_<time>.jsonl, and
//     <YYYYmmdd_HHMMSS>_samples_<task>.jsonl since v0.2.4): one JSON object
//     per line with target and filtered_resps, and up to v0.3 doc (the
//     benchmark's own record); since v0.4 the item is read from input (the
//     prompt's question and lettered options) and the task's metric object.
//
// Each row becomes a Row. Match then pairs rows with items: by benchmark and
// id where the file's ids are the items' ids (and its question, if given,
// agrees), else by question text and options. A reply is parsed into an
// option index by package answer. Rows that match no item, match several,
// answer an item twice or cannot be parsed are counted and listed in a
// Report, never silently dropped.
//
// The same rows, with their gold answers, are what `vidscreen import`
// turns into items.
package predictions
