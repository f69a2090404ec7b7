// Package selection is vidscreen select as a library: it turns a finished,
// screened audit into a released benchmark. A Spec holds the command's
// flags as data (DefaultSpec their defaults, Validate naming the flag a
// value breaks); Select runs it and returns the Summary the command prints.
//
// Data moves in one direction. Select reads the run directory through its
// format (harness/rundir: config.json, cards.json, complete.json) and the
// screen (harness/screen, computed in passing when the run holds none),
// builds the candidate pool (release.FromScreen, its searches placed on the
// device by kernels/place), opens the models the run's model readers and
// text embedder used (run.OpenModels, so that the red team asks the same
// models as the audit did), and hands the pool and the red team to
// release.Compose, which composes, gates and registers the release. The
// release and its exports are then written to Spec.Out; the run is never
// written to.
//
// The package sits between the orchestrator and the release: it imports
// harness/run and models to open the run's models, which harness/release,
// kept free of cgo, may not (internal/layering).
package selection
