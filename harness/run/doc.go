// Package run carries out an audit in a run directory. It is the audit as a
// library: what vidscreen audit and vidscreen merge do, a Go program does
// with the same calls.
//
// A Spec is everything an audit is asked, as plain data: each field is one
// flag of vidscreen audit, and a Spec encodes to and from JSON. Open checks
// a Spec and opens what it names: the models of its models folder on every
// device (OpenModels: the text encoders, the readers, the image tower,
// captioner, VLM and asr roles, ONNX or served), the GPU frame path and the
// GPU for the searches (kernels/place). The Job it returns runs once: Run
// reads and checks the items, embeds their texts (cached by content), runs
// the feature stage of the video levels (harness/features), runs every
// attacker on every seeded order as a unit of work on a bounded pool of
// goroutines, appends each unit's predictions to a self-checking record
// file as they are produced, computes the near-duplicates and the report
// cards and writes the reports, each file atomically. Every file of the run
// directory is written here; its format (names, config.json, records,
// permutation files) is package harness/rundir, which readers of a finished
// run (screen, select) use without linking this package.
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
// A Spec with a Shard runs the feature stage of one shard of the videos and
// stores its Spec (Spec.ShardSpec) in the shard's directory; MergeSpec reads
// the shards' Specs back and returns the Spec of the audit that merges them,
// whose outputs are byte-identical to an unsharded run's.
package run
