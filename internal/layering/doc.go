// Package layering holds the test that keeps the module's imports flowing
// one way, as README.md's Layout says: items -> decode -> models -> kernels
// -> attackers -> metrics -> report. The test loads the package graph with
// `go list -deps -json` (in both the default and the cuda build) and fails
// with "A imports B (via ...)" for each import a rule forbids: attackers,
// metrics and reports linking the cgo packages (models, decode, ONNX
// Runtime, FFmpeg), kernels reaching back into models, harness or decode,
// models into harness or kernels/cuda, decode into models or harness.
//
// The package has no code of its own; a rule is added to the table in
// layering_test.go when a split makes it true.
package layering
