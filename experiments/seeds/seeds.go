// Package seeds derives independent random streams from a run's master seed and stable keys, so
// that what a task draws depends only on the seed and its key, never on worker count, task order
// or sharding.
package seeds

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
)

// Stream returns a ChaCha8 stream seeded with sha256(master | key). Keys name what the stream is
// for, for example "data|dataset=qcd|item=17" or "task|dataset=qcd|item=17|algorithm=beam"; data
// and algorithm streams use different prefixes so they never coincide.
func Stream(master uint64, key string) *rand.Rand {
	return rand.New(rand.NewChaCha8(Hash(master, key)))
}

// Hash returns sha256 of the decimal master seed, "|" and key.
func Hash(master uint64, key string) [32]byte {
	return sha256.Sum256([]byte(strconv.FormatUint(master, 10) + "|" + key))
}

// Uint64 returns the first 8 bytes of Hash as a number, for recording a stream's seed.
func Uint64(master uint64, key string) uint64 {
	h := Hash(master, key)
	return binary.LittleEndian.Uint64(h[:8])
}
