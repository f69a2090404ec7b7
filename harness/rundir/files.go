package rundir

// The files of a run directory, by name, relative to the directory.
const (
	// ConfigFile is the run's resolved configuration (Config), written
	// first: a directory without it holds no run.
	ConfigFile = "config.json"
	// LockFile is locked while an audit works in the directory (Lock).
	LockFile = ".lock"
	// RecordsFile holds the stored predictions, one Record a line (Store).
	RecordsFile = "records.log"
	// CacheDir holds what the audit computed and may read again instead of
	// computing it: embeddings, video features, VLM scores, transcripts and
	// the option-permutation choices (PermutationFile), each file named by
	// the content it was computed from (ContentKey) with its checksum
	// beside it (internal/checksum).
	CacheDir = "cache"

	// CardsJSON and CardsMarkdown are the benchmarks' report cards, IndexHTML
	// their page.
	CardsJSON     = "cards.json"
	CardsMarkdown = "cards.md"
	IndexHTML     = "index.html"
	// ItemsParquet holds one row per item: its provenance and, per
	// attacker, where it was scored and what it answered there.
	ItemsParquet = "items.parquet"
	// DuplicatesFile holds the near-duplicate pairs.
	DuplicatesFile = "duplicates.parquet"

	// QuestionNPY holds the question embeddings the near-duplicate search
	// compared (the run's embedder: text_embed with a models directory, else
	// the lexical embedder fitted on each benchmark's texts).
	QuestionNPY = "question.npy"
	// TextNPY holds the question+options embeddings the pool attackers
	// read: screening's duplicate steps compare them (Video-Index 5.1, the
	// authors' pool/dedup.py embeds the item's whole text).
	TextNPY = "text.npy"
	// CentreFrameNPY holds the image_text embedding of each item's middle
	// frame: the centre frame the frame level reads, or, in a run of the
	// order level alone, the middle one of its bag of frames.
	CentreFrameNPY = "centre_frame.npy"
	// MeanFrameNPY holds the unit mean image_text embedding of each item's
	// uniform frames (the v_i of the effective size).
	MeanFrameNPY = "mean_frame.npy"

	// RunJSON holds what varies between runs of the same configuration and
	// so stays out of cards.json: when, where and how long.
	RunJSON = "run.json"
	// StagesFile holds the measured rate of each stage of the last process
	// that worked in the run directory (StageRate). It is the one output
	// besides the log that holds timings, so it is not compared between
	// runs: cards.json and the other outputs stay pure functions of the
	// inputs.
	StagesFile = "stages.json"
	// ServedModesFile, in CacheDir, keeps the mode and form of each served
	// reader as its answers came. A resumed run whose answers all come from
	// records.log and the caches asks its readers nothing, so only this
	// file tells its cards what the first run's said.
	ServedModesFile = "served-modes.json"
	// ShardFile is written into a shard's run directory when the shard's
	// feature work is complete: which shard it is, what it did per video,
	// and the flags that made it, which merge reads to run the same audit.
	ShardFile = "shard.json"
)
