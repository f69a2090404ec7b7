package harness

import "runtime/debug"

// Version is the version of vidscreen's results: it heads cards.json, so a
// change to what an audit computes from the same inputs changes it.
const Version = "0.2.0"

// Commit returns the VCS revision the running binary was built from, with
// "-dirty" when the tree had local changes, or "unknown" when the build
// recorded none (go test, go run of a file list). It goes to run.json and
// `vidscreen version`, never to cards.json, whose bytes must not depend on
// how the binary was built.
func Commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
