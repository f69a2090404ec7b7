// Package items reads a benchmark's items, and a model's replies, from the
// files other tools and the benchmarks' own repositories write: lmms-eval's
// samples, VLMEvalKit's tables, and the official annotation files of
// Video-MME, MVBench, EgoSchema, NExT-QA and others.
//
// Each outside layout is a Format (one file per layout in package
// formats). A Format says what files it expects, detects its own files and
// reads them into Rows: records before they are checked as items. The
// caller (vidscreen import) turns rows into items and prediction lines.
//
// There is no registry held in a package variable: formats.All lists the
// built-in formats, and Lookup and Detect search whatever list they are
// given, so a test can register a format of its own.
package items
