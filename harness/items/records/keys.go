package records

import "context"

// EachKey walks the file at path as one JSON object keyed by video,
// question or the like, calling each with every key in file order (never
// through a Go map, so that rows and errors come in the same order every
// time). each is called with the walker before the key's value and must
// read or skip that value. want says what the object should hold, for the
// error where the file is something else. ctx is checked before each
// key, so that a large file stops when asked.
func EachKey(ctx context.Context, path, want string, each func(w *Walker, key string) error) error {
	w, err := Open(path)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Enter('{', want); err != nil {
		return err
	}
	for w.More() {
		if err := ctx.Err(); err != nil {
			return err
		}
		key, err := w.Key()
		if err != nil {
			return err
		}
		if err := each(w, key); err != nil {
			return err
		}
	}
	if err := w.Leave(); err != nil {
		return err
	}
	return w.End()
}
