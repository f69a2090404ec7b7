// Package formats holds the outside layouts vidscreen import reads, one
// file per layout, each a items.Format.
package formats

import "github.com/vidscreen/vidscreen/harness/items"

// All lists the built-in formats in the order `import --list` prints
// them: the evaluation tools' files first, then the benchmarks' own.
func All() []items.Format {
	return []items.Format{
		LMMSEval(),
		VLMEvalKit(),
		LMMSEvalTask(),
		VideoMME(),
		NExTQA(),
		EgoSchema(),
		MVBench(),
		PerceptionTest(),
		TempCompass(),
		MLVU(),
		LongVideoBench(),
		STAR(),
		NExTGQA(),
		TVBench(),
		Spec(),
		Table(),
	}
}
