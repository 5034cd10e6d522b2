package scouts

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// crockford is Crockford's base32 alphabet: no I, L, O or U, so IDs read
// aloud or typed from a screen survive.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewID returns a prefixed, time-ordered, random identifier such as
// "sg_01JD3W9Q7ZK4M2N8P5R6T7V8WX": 48 bits of milliseconds then 80 random
// bits (the ULID layout), so IDs sort by creation time in indexes and logs.
func NewID(prefix string) string {
	return newIDAt(prefix, time.Now())
}

func newIDAt(prefix string, t time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16)
	rand.Read(b[6:])
	// 128 bits → 26 base32 digits, most significant first.
	out := make([]byte, len(prefix)+1+26)
	copy(out, prefix)
	out[len(prefix)] = '_'
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	for i := 25; i >= 0; i-- {
		out[len(prefix)+1+i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out)
}

// NewEntityID returns a fresh ID for an entity of kind k.
func NewEntityID(k EntityKind) string { return NewID(entityPrefix(k)) }

func entityPrefix(k EntityKind) string {
	switch k {
	case EntityTask:
		return "tk"
	case EntityNote:
		return "nt"
	case EntityEvent:
		return "ev"
	case EntityProject:
		return "pj"
	}
	return "en"
}
