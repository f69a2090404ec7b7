package items

// A Row is one record of a predictions or benchmark file, before it is
// matched to an item. Fields the file does not give are empty.
type Row struct {
	// Source names the record as "file:line" or "file: row N".
	Source string
	// File and Line (or Row) locate it for a *harness.ParseError.
	File      string
	Line, Rec int

	ID string
	// DocID is lmms-eval's doc_id, the record's position in the task's
	// dataset split, for --items-from to join on when the log has no id.
	DocID     string
	Benchmark string
	Video     string
	// VideoPath is the video's file relative to the video root, where the
	// file gives one beside the video's name (vidscreen's own exports,
	// Video-MME's table): kept as the item's video_path so that a release
	// exported and imported again finds its videos where it did.
	VideoPath string
	Question  string
	Options   []string
	Task      string
	Duration  *float64
	// DurationGroup is a duration the file gives as a category
	// (Video-MME's "short", "medium", "long"); Duration is then nil.
	DurationGroup string
	// ItemsFrom says where an lmms-eval line's item came from: "doc" (the
	// benchmark's record, up to v0.3) or "input and <metric object>" (the
	// prompt and the task's metric fields, since v0.4); VideoFrom is set
	// when the video was inferred ("the question id").
	ItemsFrom, VideoFrom string

	// Gold is the correct answer as the file writes it (a letter, an
	// option's text or, as GoldIndex, an index); GoldIndex is -1 when the
	// file gives no index.
	Gold      string
	GoldIndex int

	// Reply is the model's answer as written; Choice is the option index
	// when the file gives one directly (the project's integer pred, the
	// best log-likelihood of a multiple-choice lmms-eval task), else -1.
	Reply  string
	Choice int
	// ReplyFrom names the field holding the tool's own parse of the reply
	// when Reply is that parse (lmms-eval's <metric>.pred_answer).
	ReplyFrom string
	// ReplyField names the field that holds Reply, for errors
	// ("filtered_resps", "prediction"); "" reads as "prediction".
	ReplyField string
	// Scores is the number of per-option scores the record gives (an
	// lmms-eval log-likelihood task's pairs), 0 for a written reply: one
	// per option, which --items-from checks when the record holds no
	// options of its own.
	Scores int
	// HasPrediction is false for a benchmark file without model answers.
	HasPrediction bool

	// Group is the item's capability group, where the file gives one.
	Group string
	// Start and End bound the clip in seconds, where the item asks about
	// a part of its video (STAR, NExT-GQA); nil otherwise.
	Start, End *float64
	// Meta holds what the item schema has no field for and the file
	// gives (a sub-category, the original answer text), written as the
	// item's meta object; nil when there is nothing.
	Meta map[string]any
}
