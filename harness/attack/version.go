package attack

// A versionedAttacker says which version of its method it is. An attacker
// whose answers change for the same inputs (a fixed bug, a new feature)
// gets a Version method, or a higher one: a run directory keeps its
// attackers' versions in config.json, so its stored answers are never mixed
// with those of another version of the attacker.
type versionedAttacker interface{ Version() string }

// Version is the version of a's method: its Version method's, else "1".
func Version(a Attacker) string {
	if v, ok := a.(versionedAttacker); ok {
		return v.Version()
	}
	return "1"
}
