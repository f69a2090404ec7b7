// Package letters holds what a multiple-choice reader is asked and how it
// can fail, apart from the models that answer: a Prompt is the text a
// language model reads up to where the answer letter goes and the number
// of option letters (A, B, ...) to score, and FailureServer is the reason
// an item fails when a served reader's server gave up on it.
//
// Attackers, metrics, screening and reports use these types without
// linking ONNX Runtime or CUDA: package models (the local letter scorer)
// and models/served (a reader behind an OpenAI-compatible server) take
// Prompts and return, per prompt, the log-probabilities of its letters;
// harness/attack's LetterReader is the interface they meet.
package letters
