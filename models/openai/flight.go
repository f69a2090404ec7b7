package openai

import "sync"

// flights lets one request of a key go to the server while others with the
// same key wait for its reply: two readers asking the same question at the
// same moment (the same blind query from two attackers) are one request,
// and the store holds one reply for them.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	done chan struct{}
	data []byte
	err  error
}

// do runs fn for key unless a call for key is in flight, in which case it
// waits for that call and returns its result with shared true.
func (f *flights) do(key string, fn func() ([]byte, error)) (data []byte, shared bool, err error) {
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*flight{}
	}
	if fl, ok := f.m[key]; ok {
		f.mu.Unlock()
		<-fl.done
		return fl.data, true, fl.err
	}
	fl := &flight{done: make(chan struct{})}
	f.m[key] = fl
	f.mu.Unlock()
	fl.data, fl.err = fn()
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
	close(fl.done)
	return fl.data, false, fl.err
}
