// Package world renders a world of small synthetic videos and writes
// multiple-choice items about them whose every shortcut is planted and
// written down, so that an audit can be audited: the auditor must find each
// planted shortcut at the level of the attack pyramid where it lives, and
// nothing where none was planted.
//
// Data moves one way:
//
//	Options (seed, videos, durations)  -> plan: one Scene and its items per video, by family
//	Scene.Render(t)                    -> RGB frames (pure Go, deterministic)
//	decode.CreateH264                  -> videos/*.mp4 (H.264 through FFmpeg)
//	items.jsonl, truth.json            -> what the audit reads, what it is judged against
//
// Each family is its own benchmark ("world-<family>"), so that the learners
// of the pool level, which learn within a benchmark, meet each shortcut on
// its own, and each family gets its own card. Evaluate reads the cards of an
// audit beside truth.json and says, per family, where it was caught.
//
// The same Options give the same bytes: the scenes and items come from one
// seeded generator, and the encoder writes no version or time.
package world
