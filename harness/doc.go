// Package harness holds the benchmark items an audit reads and the levels of
// the attack pyramid (docs/attackers.md).
//
// Items come from JSON Lines or Parquet files with the fields of the
// development data (id, benchmark, video, question, options, answer, task,
// duration) and the optional ones of docs/audit.md (group, video_path, start,
// end, meta). JSONLReader and ParquetReader return one validated item per
// Read, like encoding/csv's Reader; ReadFiles and ReadFS read several files
// into one run, in order, refusing an id seen twice in a benchmark. Every
// refusal is a *ParseError naming the file, the line (or row) and the field,
// wrapping one of the Err* reasons. (A reference model's answers are read
// by package predictions.)
//
// The subpackages carry the audit onward: attack (the attackers), textembed
// (text embeddings), metrics (report cards), dups (near-duplicates), run (the
// run directory, resumable records and the orchestration), report (the
// output files), release (selection, the red-team gate and the registrar)
// and demo (the embedded default items).
package harness
