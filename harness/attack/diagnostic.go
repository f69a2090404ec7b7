package attack

import (
	"strconv"
	"strings"
)

// ModelSep joins an attacker's name and the number of the role entry it
// runs on: blind-reader#2 is the blind reader on models.json's second
// lm_reader entry (the first entry's attacker keeps the plain name).
const ModelSep = "#"

// ModelName is the name of attacker base on role entry model (0 the
// first): base itself for the first, base#<model+1> for a later one.
func ModelName(base string, model int) string {
	if model <= 0 {
		return base
	}
	return base + ModelSep + strconv.Itoa(model+1)
}

// SplitModel splits an attacker's name into its base name and its role
// entry (0 the first): "blind-reader#2" is ("blind-reader", 1). A name
// without a well-formed "#<n>", n >= 2, is its own base, entry 0.
func SplitModel(name string) (base string, model int) {
	i := strings.LastIndex(name, ModelSep)
	if i < 0 {
		return name, 0
	}
	n, err := strconv.Atoi(name[i+len(ModelSep):])
	if err != nil || n < 2 || strconv.Itoa(n) != name[i+len(ModelSep):] {
		return name, 0
	}
	return name[:i], n - 1
}

// A diagnosticOnlyAttacker may be a further model of a Video-Oasis
// diagnostic test (seed 003, section 3.2) and nothing else.
type diagnosticOnlyAttacker interface{ diagnosticOnly() bool }

// DiagnosticOnly reports whether a is a further model of a Video-Oasis
// diagnostic test, run on a later entry of its role (blind-reader#2, ...):
// the cards report it, screening's consensus counts it as another model of
// its test, and no level's eps nor the Holm family counts it, so the
// pyramid's figures stay those of the role's first entry, comparable with
// the papers.
func DiagnosticOnly(a Attacker) bool {
	d, ok := a.(diagnosticOnlyAttacker)
	return ok && d.diagnosticOnly()
}
