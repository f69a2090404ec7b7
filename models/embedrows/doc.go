// Package embedrows is the work of `vidscreen models embed`: it reads a
// file of texts or a list of image files, runs one embedding role of a
// models directory on them (image_text, text_embed or dup_confirm) and
// returns one row per input, in input order, exactly the vector the audit
// uses (after pooling and normalisation), for writing as a float32 .npy.
// It is how a user checks an export against their own reference.
package embedrows
