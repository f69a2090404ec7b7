// Package answercheck holds the rules of the answer-verification stage of
// Video-Index (002, section 1: "the hardest items whose answers a judge
// verified against the frames"; the authors' compose/verify.py): a
// verifier model sees an item's frames, its question, its options and the
// option the benchmark marks as correct, and gives one verdict of four
// (Verdicts). It reads fps:1,max:32 frames first and, where its verdict is
// contradicted or not_verifiable, fps:1,max:512 frames; the second verdict
// replaces the first. Keep decides from the final verdict and the video's
// duration whether the item may enter a release; an item it does not keep
// is answer_suspect in screening (harness/screen) and stays out of a
// selection unless the user admits suspects (harness/selection).
//
// The authors' verifier writes a line of JSON; vidscreen's readers score
// option letters (models/letters), so the verdicts are put to the reader
// as four lettered options (Item) and the verdict is the letter it favours
// (VerdictOf): the same four definitions, asked the way every vidscreen
// reader is asked, on the served or ONNX vlm_reader the run has.
//
// The package holds rules and the run directory's file (File); harness/run
// runs the stage and harness/metrics counts it on the cards.
package answercheck
