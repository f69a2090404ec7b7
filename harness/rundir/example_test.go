package rundir_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// An audit locks and claims its run directory, then stores predictions; a
// resumed one reads them back.
func Example() {
	dir, _ := os.MkdirTemp("", "run")
	defer os.RemoveAll(dir)
	cfg := &rundir.Config{Format: rundir.FormatVersion, Seed: 1, Embedder: "lexical"}
	for run := 0; run < 2; run++ {
		unlock, err := rundir.Lock(dir)
		if err != nil {
			log.Fatal(err)
		}
		resumed, err := rundir.Claim(dir, cfg)
		if err != nil {
			log.Fatal(err)
		}
		s, _, err := rundir.OpenStore(filepath.Join(dir, rundir.RecordsFile), func(r rundir.Record) error {
			fmt.Printf("stored: %s answered %d to %q\n", r.Attacker, r.Pred.Choice, r.Key)
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
		if !resumed {
			err = s.Append([]rundir.Record{{Key: "NExT-QA\x00q1", Attacker: "fixed-position", Pred: attack.Prediction{Choice: 2}}})
		}
		s.Close()
		unlock()
		fmt.Println("resumed:", resumed, err)
	}
	// Output:
	// resumed: false <nil>
	// stored: fixed-position answered 2 to "NExT-QA\x00q1"
	// resumed: true <nil>
}
