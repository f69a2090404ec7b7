// Package conformance holds the tests that check vidscreen's model roles
// against Hugging Face's reference implementations: tokenizers, image
// processors, Whisper's log-mel features, chat templates and whole roles
// against transformers.js (Hugging Face's JavaScript port of transformers,
// run by Node from .cache/reference, which make setup-reference installs),
// and pixel values against Python transformers' processors as Pillow and
// numpy reproduce them.
//
// The package has no code of its own: the tests call the packages the
// audit runs, on the same inputs the reference is given, and compare. The
// reference never reaches bin/vidscreen. README.md beside this file holds
// the conformance table (component, reference, cases, largest difference,
// tolerance) and where each test's files come from.
package conformance
