// Package rundir is the format of an audit's run directory: the names of
// its files, the configuration that identifies the run, the record file of
// stored predictions, the option-permutation cache files, the lock and the
// stage timings. The audit (harness/run) writes a run directory through
// it; screening, selection and merging (harness/screen, harness/release,
// cmd/vidscreen) read one through it, without linking the decoder or the
// models.
//
// A run directory holds:
//
//	config.json         ConfigFile: the resolved configuration (Config)
//	.lock               LockFile: held while an audit works here (Lock)
//	records.log         RecordsFile: one stored prediction a line (Record, Store)
//	cache/              CacheDir: what may be read instead of computed again,
//	                    each file named by its content (ContentKey) with its
//	                    checksum beside it (internal/checksum); among them the
//	                    option-permutation choices (PermutationFile) and
//	                    served-modes.json (ServedModesFile)
//	cards.json          CardsJSON, CardsMarkdown, IndexHTML: the report cards
//	cards.md
//	index.html
//	items.parquet       ItemsParquet: per item, its provenance and answers
//	duplicates.parquet  DuplicatesFile: the near-duplicate pairs
//	question.npy        QuestionNPY, TextNPY, CentreFrameNPY, MeanFrameNPY:
//	text.npy            one float32 row per item, in items.parquet's order
//	centre_frame.npy    (the frame files only when a video level ran)
//	mean_frame.npy
//	run.json            RunJSON: when, where and how long (differs by design)
//	stages.json         StagesFile: each stage's time and rate (StageRate)
//	shard.json          ShardFile: in a shard's directory, once its work is done
//	complete.json       harness/completion's record of the finished outputs
//
// How data moves through it. An audit takes the Lock, then Claims the
// directory with its Config: a new or empty directory gets config.json; one
// that holds the same configuration, byte for byte (EncodeConfig), is
// resumed; any other is refused with a *ConfigMismatchError (which the
// audit may narrow to an extension). It then opens the Store, which reads
// every stored Record back, drops the torn tail an interrupted append left
// and appends each unit's predictions in batches, one write and one fsync
// each. The outputs are written last, each atomically
// (internal/atomicfile), and complete.json after them: a reader checks it
// (completion.Check) before it trusts the outputs to come from one run.
//
// Resumption rests on three properties of the format: config.json names
// everything that can change an output (and nothing else), so equal bytes
// mean the same run; every line of records.log checks itself (length and
// CRC-32), so a kill at any instant leaves records that read back or a tail
// that is dropped; and every cache file is named by the content it was
// computed from, so a changed input is another file, never a stale one.
// FormatVersion names the layout: a directory of another is refused.
package rundir
