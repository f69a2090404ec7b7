package release

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAdmitSuspectsNamesTheRelease: two lockfiles differing only in the
// query's admit_suspects hash to different names, and a query that does not
// admit suspects writes no admit_suspects key, so the names of the releases
// made before the field existed do not change.
func TestAdmitSuspectsNamesTheRelease(t *testing.T) {
	t.Parallel()
	for _, q := range []Query{{Budget: 20}, {Hardest: 3, Per: PerGroup}} {
		off := Lockfile{Vidscreen: "0.0.0-test", Selector: "test", Seed: 11, Query: q}
		on := off
		on.Query.AdmitSuspects = true
		offName, err := off.Name()
		if err != nil {
			t.Fatal(err)
		}
		onName, err := on.Name()
		if err != nil {
			t.Fatal(err)
		}
		if offName == onName {
			t.Errorf("query %+v: admitting suspects or not, both are named %s", q, offName)
		}
		offJSON, _ := json.Marshal(off.Query)
		onJSON, _ := json.Marshal(on.Query)
		if bytes.Contains(offJSON, []byte("admit_suspects")) {
			t.Errorf("query %+v without suspects writes %s: the key would rename every earlier release", q, offJSON)
		}
		if !bytes.Contains(onJSON, []byte(`"admit_suspects":true`)) {
			t.Errorf("query %+v admitting suspects writes %s, want admit_suspects true", q, onJSON)
		}
	}
}
