package rundir

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
)

// ContentKey is the content key that names a file of CacheDir: a hash of
// the name of what computed it (an embedder's model and parameters, an
// attacker and its seed and order), of the texts its fit read, and of the
// texts it was computed on, each text length-prefixed so that no two lists
// collide by concatenation; 32 hex digits.
func ContentKey(name string, fit, texts []string) string {
	h := sha256.New()
	var n [8]byte
	write := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	write(name)
	for _, list := range [][]string{fit, texts} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(list)))
		h.Write(n[:])
		for _, s := range list {
			write(s)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
