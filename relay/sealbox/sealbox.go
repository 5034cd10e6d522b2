// Package sealbox seals webhook content to a device's X25519 key in a way
// that costs the relay one scalar multiplication per batch of items rather
// than two per item.
//
// NaCl's anonymous sealed box (what the relay used alone before) makes a
// fresh ephemeral key pair for every message: two X25519 multiplications,
// ≈160 µs of CPU here, which capped webhook ingest at a third of what bare
// net/http serves. Format "batch-v1" keeps the same primitives
// (X25519 → HSalsa20 key, XSalsa20-Poly1305) but lets one ephemeral key
// serve a bounded epoch of items for one device, each item with its own
// random 24-byte nonce:
//
//	0x01 || ephemeral public key (32) || nonce (24) || secretbox(plain)
//
// What it costs in secrecy: the epoch's shared key lives in the relay's
// memory until the epoch ends (at most MaxUses items or MaxAge), so an
// attacker who reads the relay's memory could open the epoch's items at
// rest. That attacker already reads those items' plaintext as they
// arrive; no key is ever written to disk, and nothing at rest can be
// opened without the device's private key once the epoch is over.
package sealbox

import (
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/salsa20/salsa"
)

// FormatBatch names the format in a device's hello (protocol.Hello.Seal).
const FormatBatch = "batch-v1"

const (
	tagBatch = 0x01
	// headerLen is the tag, the ephemeral public key and the nonce.
	headerLen = 1 + 32 + 24
	// Overhead is what batch-v1 adds to a plaintext.
	Overhead = headerLen + box.Overhead
)

// Defaults bound an epoch: small enough that a key in memory covers little,
// large enough that its scalar multiplication is spread thin (at 10,000
// items/s it is one multiplication per 100 ms).
const (
	DefaultMaxUses = 1000
	DefaultMaxAge  = time.Minute
	// maxDevices bounds the sealer's memory; past it the table is cleared
	// (epochs just start again).
	maxDevices = 4096
)

// Sealer seals for many devices, keeping one epoch per device key. It is
// safe for concurrent use.
type Sealer struct {
	MaxUses int
	MaxAge  time.Duration
	Now     func() time.Time

	mu     sync.Mutex
	epochs map[[32]byte]*epoch
}

type epoch struct {
	ephPub [32]byte
	key    [32]byte
	uses   int
	born   time.Time
}

// Seal encrypts plain for the device whose X25519 public key is pub.
func (s *Sealer) Seal(pub [32]byte, plain []byte) ([]byte, error) {
	ephPub, key, err := s.epochFor(pub)
	if err != nil {
		return nil, err
	}
	out := make([]byte, headerLen, Overhead+len(plain))
	out[0] = tagBatch
	copy(out[1:33], ephPub[:])
	var nonce [24]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("sealbox: nonce: %w", err)
	}
	copy(out[33:headerLen], nonce[:])
	return box.SealAfterPrecomputation(out, plain, &nonce, &key), nil
}

func (s *Sealer) epochFor(pub [32]byte) ([32]byte, [32]byte, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	maxUses, maxAge := s.MaxUses, s.MaxAge
	if maxUses <= 0 {
		maxUses = DefaultMaxUses
	}
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	t := now()
	s.mu.Lock()
	e := s.epochs[pub]
	if e != nil && e.uses < maxUses && t.Sub(e.born) < maxAge {
		e.uses++
		ephPub, key := e.ephPub, e.key
		s.mu.Unlock()
		return ephPub, key, nil
	}
	s.mu.Unlock()

	// The multiplication runs outside the lock: a device's first items
	// may each start an epoch when they arrive together, which costs what
	// the anonymous box cost and stays correct (every epoch has its own
	// ephemeral key).
	fresh, err := newEpoch(pub, t)
	if err != nil {
		return [32]byte{}, [32]byte{}, err
	}
	s.mu.Lock()
	if s.epochs == nil || len(s.epochs) >= maxDevices {
		s.epochs = make(map[[32]byte]*epoch)
	}
	s.epochs[pub] = fresh
	s.mu.Unlock()
	return fresh.ephPub, fresh.key, nil
}

func newEpoch(pub [32]byte, t time.Time) (*epoch, error) {
	devKey, err := ecdh.X25519().NewPublicKey(pub[:])
	if err != nil {
		return nil, fmt.Errorf("sealbox: device key: %w", err)
	}
	eph, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sealbox: ephemeral key: %w", err)
	}
	shared, err := eph.ECDH(devKey)
	if err != nil {
		return nil, fmt.Errorf("sealbox: shared secret: %w", err)
	}
	e := &epoch{uses: 1, born: t}
	copy(e.ephPub[:], eph.PublicKey().Bytes())
	e.key = boxKey(shared)
	return e, nil
}

// boxKey is NaCl box's key from an X25519 shared secret (box.Precompute's
// HSalsa20 step), so that batch-v1 is box with a remembered key.
func boxKey(shared []byte) [32]byte {
	var k [32]byte
	var in [16]byte
	copy(k[:], shared)
	salsa.HSalsa20(&k, &in, &k, &salsa.Sigma)
	return k
}

// ErrNotBatch says a payload is not in batch-v1 format (it may be an
// anonymous sealed box).
var ErrNotBatch = errors.New("sealbox: not a batch-v1 payload")

// Opener opens batch-v1 payloads with a device's private key, remembering
// the shared keys of recent epochs so that a backlog sealed in one epoch
// costs one multiplication. It is safe for concurrent use.
type Opener struct {
	priv *ecdh.PrivateKey

	mu   sync.Mutex
	keys map[[32]byte][32]byte
}

// maxEpochs bounds an Opener's memory.
const maxEpochs = 256

// NewOpener returns an Opener for the device's private key.
func NewOpener(priv *ecdh.PrivateKey) *Opener {
	return &Opener{priv: priv, keys: make(map[[32]byte][32]byte)}
}

// IsBatch reports whether sealed is shaped like a batch-v1 payload. An
// anonymous sealed box starts with a random public key, so it can look like
// one: Open failing is what tells them apart for sure.
func IsBatch(sealed []byte) bool {
	return len(sealed) >= Overhead && sealed[0] == tagBatch
}

// Open decrypts a batch-v1 payload. It fails with ErrNotBatch when the
// payload is not one, or does not open with this device's key.
func (o *Opener) Open(sealed []byte) ([]byte, error) {
	if !IsBatch(sealed) {
		return nil, ErrNotBatch
	}
	var ephPub [32]byte
	copy(ephPub[:], sealed[1:33])
	var nonce [24]byte
	copy(nonce[:], sealed[33:headerLen])
	o.mu.Lock()
	key, ok := o.keys[ephPub]
	o.mu.Unlock()
	if !ok {
		eph, err := ecdh.X25519().NewPublicKey(ephPub[:])
		if err != nil {
			return nil, ErrNotBatch
		}
		shared, err := o.priv.ECDH(eph)
		if err != nil {
			return nil, ErrNotBatch // a low-order point: not sealed to us
		}
		key = boxKey(shared)
	}
	plain, ok2 := box.OpenAfterPrecomputation(nil, sealed[headerLen:], &nonce, &key)
	if !ok2 {
		return nil, ErrNotBatch
	}
	if !ok {
		// Remembered only once it opened: garbage cannot fill the table.
		o.mu.Lock()
		if len(o.keys) >= maxEpochs {
			clear(o.keys)
		}
		o.keys[ephPub] = key
		o.mu.Unlock()
	}
	return plain, nil
}
