package openai

import (
	"os"
	"path/filepath"
	"testing"
)

// Whatever bytes a store file holds, OpenStore opens it or says where it is
// corrupt, and what it opens it can append to and read back.
func FuzzOpenStore(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "seed.jsonl")
	s, _ := OpenStore(good)
	for i, r := range storeReplies(2) {
		s.Put(keyOf(i), r)
	}
	s.Close()
	b, _ := os.ReadFile(good)
	f.Add(b)
	f.Add(b[:len(b)-3])
	f.Add([]byte("00000000 {}\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(p, data, 0o644)
		s, err := OpenStore(p)
		if err != nil {
			return
		}
		defer s.Close()
		n := s.Len()
		k := keyOf(99)
		if err := s.Put(k, StoredReply{Status: 200, Body: []byte(`{"x":1}`)}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := OpenStore(p)
		if err != nil {
			t.Fatalf("reopen after a put: %v", err)
		}
		defer s2.Close()
		if _, ok, _ := s2.Get(k); !ok || s2.Len() < n {
			t.Errorf("after reopening: %d records (had %d), put record found %v", s2.Len(), n, ok)
		}
	})
}
