// Package spec reads a benchmark that has no importer of its own from a
// declarative adapter spec: which annotation files to read, where the
// records sit inside a JSON file, and which field (by name, nested path or
// template with small converters) gives the question, the options, the
// answer, the video and the task. It is what the Video-Index authors'
// onboarding adapters describe (their docs/onboard.md), as a YAML or JSON
// file read by Go.
//
// Without a spec, Guess picks the fields by their names (video, question,
// options or candidates or a0..a4, answer, task_type, ...) and says which
// it chose, so that a user writes a spec only when a guess is wrong.
//
// Every record goes through the same format rules as the built-in
// formats (package items): letter prefixes stripped only when they run A,
// B, C... in order, options recovered from the question text when there is
// no option field, a gold naming several options or none made open-ended
// and set aside, a digit gold read only with a known index base.
package spec
