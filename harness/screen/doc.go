// Package screen decides, item by item, what of a finished audit is fit to
// build a benchmark from (Video-Index 5.1), and measures the same run the
// way Video-Oasis does (seed 003, section 3): how many of its diagnostic
// tests solve each item, and which items need a person to look at them.
//
// Data moves one way. Open reads a run directory (items.parquet, cards.json
// and the embedding files the audit wrote) into an Input: per item its
// provenance and, per attacker, what the attacker did where it was scored.
// Compute turns an Input into a Screen: per item and attacker a Verdict
// (solved or not, by the rule of the attacker's kind), the item's
// near-duplicate cluster and whether it duplicates an item of another
// source, its data-quality flags, whether screening keeps it and why not,
// and how many diagnostic tests solve it, with the ambiguity flags; per
// benchmark a Summary of what screening removes and why; and the
// consensus counts. Write stores a Screen in a directory (screen.parquet,
// ambiguity.parquet, screen.json, screen.md, screen.html and the embedding
// rows as .npy) and Read loads it back, so that selection builds on it
// without the audit.
//
// A Screen is a pure function of the run's outputs and the Options: the
// same run screens to byte-identical files.
package screen
