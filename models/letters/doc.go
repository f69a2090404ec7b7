// Package letters holds what a multiple-choice reader is asked and how it
// can fail, apart from the models that answer: a Prompt is an item's parts
// (which of the Video-Index authors' prompts, the question, the options in
// the order shown, the context) with their plain rendering, a Wording puts
// the parts into words (the authors' by default, a models folder's
// prompts.json otherwise, named by its hash), LetterOf reads an option
// letter as the authors' regex does, and FailureServer is the reason an
// item fails when a served reader's server gave up on it.
//
// Attackers, metrics, screening and reports use these types without
// linking ONNX Runtime or CUDA: package models (the local letter scorer,
// which frames the wording with the model's chat template) and
// models/served (a reader behind an OpenAI-compatible server, which sends
// the wording as chat messages) take Prompts and return, per prompt, the
// log-probabilities of its letters; harness/attack's LetterReader is the
// interface they meet.
package letters
