// Package vidomni scores, runs and feeds the sentence-wise event verification
// of VidOmni-Bench (arXiv:2609.21521): a dense caption of a video
// is split into sentences, people label each one Correct, Incorrect (a
// hallucination) or Unknown, and a verifier must find the Incorrect ones.
//
// Data moves through it in this order:
//
//  1. ReadLabels reads the labelled pairs (labels JSONL: one video-caption
//     pair a line) and ReadVerdicts the verifiers' answers (verdicts JSONL:
//     per pair and verifier, labels or the raw reply). Bad input stops the
//     reader with a *harness.ParseError naming the file, line and field.
//  2. ParseReply reads a raw reply in the format the paper's prompt asks for
//     (Figure 14: the first line a JSON dictionary sentence_1..sentence_N ->
//     0 or 1); a reply it cannot read is counted, never guessed.
//  3. Score computes precision, recall and F1 with Incorrect as the positive
//     class, per pair and averaged over pairs (equation 2), overall and by
//     complexity type, duration bracket and error category, the verifier x
//     caption-source matrix (its diagonal is self-verification, figure 12)
//     and the cross-model ensembles (table 11).
//  4. Scores writes scores.json, a Markdown summary, a self-contained HTML
//     page with the type x duration heat map, and sentences.parquet.
//
// Split cuts a dense caption into sentences. The verifiers and caption
// writers produce verdicts and captions offline over decode (FrameSampler)
// and the local models: Similarities (the image_text role, no VLM; a
// threshold from FitThreshold), VerifyVLM (the vlm_reader role) and
// VerifyChat (a generating model on a local server, the paper's prompt
// and reply format); WriteCaptions (the captioner role, a sentence per
// frame) and CaptionChat (the paper's captioning instructions). A
// FrameCache keeps frame embeddings between runs.
//
// The vidomni commands are calls a Go program makes the same way, each
// from plain options (one field per flag, JSON-encodable): ScoreFiles
// reads the labels and verdicts files and writes the reports; Verify opens
// the models (or a served vlm_reader, or a server) that VerifyOptions.Method
// names, verifies and writes the verdicts file; Caption writes the captions
// file. Impossible options are an *harness.UsageError, bad files
// harness.ErrBadInput; the results say what was done, for the caller to
// print.
package vidomni
