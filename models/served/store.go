package served

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/vidscreen/vidscreen/models/openai"
)

// A Store is the served roles' response store (openai.Store), opened on
// first use: the audit names it in the run directory before the run has
// claimed that directory, and a file written there first would make the
// directory look like something else's. One Store serves every role of a
// run (its keys are digests of the model and the whole request).
type Store struct {
	path string
	once sync.Once
	st   *openai.Store
	err  error
}

// NewStore names the store's file; nothing is opened yet.
func NewStore(path string) *Store { return &Store{path: path} }

// open opens the file (and its folder) once.
func (s *Store) open() (*openai.Store, error) {
	s.once.Do(func() {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
			s.err = fmt.Errorf("response store: %w", err)
			return
		}
		s.st, s.err = openai.OpenStore(s.path)
	})
	return s.st, s.err
}

// Close closes the file if it was opened.
func (s *Store) Close() error {
	var st *openai.Store
	s.once.Do(func() {}) // no open after Close
	st = s.st
	if st == nil {
		return nil
	}
	return st.Close()
}

// lazyClient is a role's client, made on first use so that it can take the
// Store then; New checks the configuration at once all the same.
type lazyClient struct {
	cfg  Config
	once sync.Once
	c    *openai.Client
	err  error
	// made is c once made, for Stats to read the endpoints' counts from
	// without waiting for get.
	made atomic.Pointer[openai.Client]
}

func newLazyClient(cfg Config) (*lazyClient, error) {
	if _, err := newClient(cfg, nil); err != nil {
		return nil, err
	}
	return &lazyClient{cfg: cfg}, nil
}

func (l *lazyClient) get() (*openai.Client, error) {
	l.once.Do(func() {
		var st *openai.Store
		if l.cfg.Store != nil {
			if st, l.err = l.cfg.Store.open(); l.err != nil {
				return
			}
		}
		l.c, l.err = newClient(l.cfg, st)
		if l.err == nil {
			l.made.Store(l.c)
		}
	})
	return l.c, l.err
}
