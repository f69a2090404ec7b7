package rundir

import "github.com/vidscreen/vidscreen/harness/attack"

// A Record is one stored prediction: attacker Attacker's answer on variant
// (order) Variant to the item with key Key, answered at Position of that
// order.
type Record struct {
	Key      string // harness.Item.Key
	Attacker string
	// Input names what the answer read beyond what config.json fixes: for
	// an attacker that reads frames, the item's video bytes and the models
	// that made its features, so that an answer is never served for other
	// bytes or models than it read; "" for the others.
	Input    string
	Variant  int
	Position int
	Pred     attack.Prediction
}

// Records are stored one per line, each line checking itself:
//
//	<payload length> <CRC-32 (IEEE) of the payload, 8 hex digits> <payload>\n
//
// and the payload is space-separated: the quoted item key, the quoted
// attacker, the quoted input (Record.Input), variant, position, choice, the
// answer's flags (1 when it abstained, plus 2 when it was floored,
// Prediction.Floored: a file written before the flag read back the same,
// its 0 and 1 meaning what they meant), and the scores
// joined by commas (shortest decimal that reads back to the same float64,
// "NaN", "+Inf" or "-Inf"; "-" when there are none). A line whose length,
// checksum or syntax is wrong is never read back as a record: it can only be
// the torn tail of a write cut short, and the store truncates the file before
// it.

// The bits of a record's flags field.
const (
	recordAbstain = 1 // Prediction.Abstain
	recordFloored = 2 // Prediction.Floored
)

// recordFlags is the flags field of p.
func recordFlags(p attack.Prediction) int {
	f := 0
	if p.Abstain {
		f |= recordAbstain
	}
	if p.Floored {
		f |= recordFloored
	}
	return f
}
