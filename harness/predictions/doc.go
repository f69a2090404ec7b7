// Package predictions reads what a model answered on a benchmark, in the
// files the evaluation tools people already use write, and matches each
// answer to the audit's items.
//
// Three layouts are read (Read picks one from the file):
//
//   - the project's JSON Lines: {"id", "benchmark", "pred"}, pred a 0-based
//     option index (a JSON integer) or the reply as text, read here;
//   - VLMEvalKit's result tables (.xlsx, .tsv, .csv, and .json with
//     PRED_FORMAT=json), read by formats.VLMEvalKit;
//   - lmms-eval's samples in every layout of its history, read by
//     formats.LMMSEval.
//
// The two tools' readers live in package harness/items/formats, where
// `vidscreen import` finds them with the benchmarks' own layouts; this
// package delegates to them. Match then pairs rows with items: by
// benchmark and id where the file's ids are the items' ids (and its
// question, if given, agrees), else by question text and options. A reply
// is parsed into an option index by items.Reply: a reply that is only a
// digit is read with the base the user gives (--index-base) and refused
// without one. Rows that match no item, match several, answer an item
// twice or cannot be parsed are counted and listed in a Report, never
// silently dropped; an unparsed reply counts as a wrong answer, as the
// tools that wrote the file count it.
package predictions
