package vidomni

import (
	"io"
	"os"
)

// Env is what Verify and Caption read of their caller's surroundings. The
// zero value discards the notices and reads the process's environment.
type Env struct {
	// Stderr receives what decoding and ONNX Runtime say as they go (a
	// hardware decoder falling back to the CPU, the runtime's device).
	Stderr io.Writer
	// Getenv reads the environment: ONNX Runtime's library and a served
	// role's API key. Nil is os.Getenv.
	Getenv func(string) string
	// Skipped, when set, is told the videos that could not be decoded as
	// soon as each set of videos has been read (the pairs verified, then
	// the pairs a threshold is fitted on), so that a command names them in
	// the order they happen; their pairs get no verdict. The results hold
	// them too.
	Skipped func([]FailedVideo)
}

func (e Env) withDefaults() Env {
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	return e
}

// skipped hands failed to e.Skipped, when there are any.
func (e Env) skipped(failed []FailedVideo) {
	if len(failed) > 0 && e.Skipped != nil {
		e.Skipped(failed)
	}
}
