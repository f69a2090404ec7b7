package harness

import "fmt"

// A Level is one rung of the attack pyramid (Video-Index, sections 2-3). Levels
// nest: an attacker at a level has the access of every level below it.
type Level int

const (
	LevelOption Level = iota // option texts and layout
	LevelText                // + question
	LevelPool                // + other evaluated items, each before its gold joins the pool
	LevelFrame               // + one frame or captions
	LevelOrder               // + temporally perturbed video
)

var levelNames = [...]string{"option", "text", "pool", "frame", "order"}

// Levels lists every level from the least access to the most.
func Levels() []Level { return []Level{LevelOption, LevelText, LevelPool, LevelFrame, LevelOrder} }

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// ParseLevel is the inverse of Level.String.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown level %q (want one of option, text, pool, frame, order)", s)
}

func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
