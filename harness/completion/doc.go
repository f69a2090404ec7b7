// Package completion keeps the completion record of a run directory: the
// file complete.json, written last by the audit (harness/run), after every
// output, that names each output with its size and SHA-256. The outputs of a
// run are complete together or the run is unfinished: an audit killed while
// it writes its reports leaves, say, a new cards.json beside an old
// items.parquet, each file whole (every file is written atomically) but the
// set inconsistent. The audit removes the record before it changes anything
// in the directory and writes it again only once every output is in place,
// so a reader that finds the record, and finds every output as the record
// describes it, reads one finished run.
//
// Every reader of a run's outputs (vidscreen screen, select and merge) calls
// Check first and refuses a run without a record, or with an output that no
// longer matches it, with an *UnfinishedError (exit status 2 on the command
// line): the fix is to rerun the same audit command, which resumes from
// what is stored and finishes the run.
package completion
