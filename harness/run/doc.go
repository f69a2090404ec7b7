// Package run carries out an audit in a run directory: it reads and checks
// the items, embeds their texts (cached by content), runs every attacker on
// every seeded order as a unit of work on a bounded pool of goroutines,
// appends each unit's predictions to a self-checking record file as they are
// produced, and finally computes the near-duplicates and the report cards and
// writes the reports, each file atomically.
//
// A run can be killed at any instant. Started again on the same directory
// with the same configuration (config.json), it drops the torn tail of the
// records, skips every stored unit and writes outputs byte-identical to
// those of an uninterrupted run; with another configuration it is refused
// (or extended, when the configuration only adds to it). A stored answer of
// an attacker that reads frames names the video bytes and video models it
// read (rundir.Record.Input), and is computed again when they change; the answer
// of an item whose video failed is not stored. Every cache file has its
// checksum beside it (internal/checksum) and a damaged one is computed
// again and reported. Outputs never depend on the number of workers (the
// record file holds the same records in the order the units finished).
//
// The run directory's format (its files' names, config.json, records.log,
// the lock and the naming of cache files) is harness/rundir's, which the
// readers of a finished run (screening, selection) use without this
// package, and so without the decoder or the models.
package run
