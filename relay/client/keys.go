package client

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/nacl/secretbox"
	"golang.org/x/crypto/salsa20/salsa"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/sealbox"
)

// Keys is a device's X25519 key pair.
type Keys struct {
	Public, Private [32]byte
	// priv is Private made once: box.OpenAnonymous rebuilds it for every
	// payload, which derives the public key again each time (a scalar
	// multiplication as costly as the one the open needs).
	priv *ecdh.PrivateKey
	// batch opens batch-v1 payloads, remembering recent epochs' keys.
	batch *sealbox.Opener
}

// DeviceKeys derives the device's key pair from its token. Deriving it
// (rather than generating and storing one) means the only secret a desktop
// keeps is the token, already in the keyring; and since the relay stores
// only the token's SHA-256, it cannot derive the private key.
func DeviceKeys(token string) (Keys, error) {
	var k Keys
	priv, err := hkdf.Key(sha256.New, []byte(token), []byte("scouts device key"), "scouts x25519 v1", 32)
	if err != nil {
		return k, fmt.Errorf("client: derive device key: %w", err)
	}
	copy(k.Private[:], priv)
	pub, err := curve25519.X25519(k.Private[:], curve25519.Basepoint)
	if err != nil {
		return k, fmt.Errorf("client: derive device key: %w", err)
	}
	copy(k.Public[:], pub)
	if k.priv, err = ecdh.X25519().NewPrivateKey(k.Private[:]); err != nil {
		return k, fmt.Errorf("client: derive device key: %w", err)
	}
	k.batch = sealbox.NewOpener(k.priv)
	return k, nil
}

// OpenWebhook opens a proposal's sealed webhook payload.
func (k Keys) OpenWebhook(sealed []byte) (protocol.WebhookPayload, error) {
	var p protocol.WebhookPayload
	var plain []byte
	ok := false
	if sealbox.IsBatch(sealed) {
		// An anonymous box can start with the tag byte too: one that does
		// not open as batch-v1 is tried as what it may be.
		if o := k.opener(); o != nil {
			if b, err := o.Open(sealed); err == nil {
				plain, ok = b, true
			}
		}
	}
	if !ok {
		plain, ok = k.openAnonymous(sealed)
	}
	if !ok {
		return p, errors.New("client: sealed payload cannot be opened with this device's key")
	}
	if err := json.Unmarshal(plain, &p); err != nil {
		return p, fmt.Errorf("client: sealed payload: %w", err)
	}
	return p, nil
}

// opener is the batch-v1 opener, made now for keys filled in by hand.
func (k Keys) opener() *sealbox.Opener {
	if k.batch != nil {
		return k.batch
	}
	priv, err := ecdh.X25519().NewPrivateKey(k.Private[:])
	if err != nil {
		return nil
	}
	return sealbox.NewOpener(priv)
}

// zeros is HSalsa20's input when a NaCl box derives its key.
var zeros [16]byte

// openAnonymous is box.OpenAnonymous with the device's private key made
// once: the same construction (the nonce is BLAKE2b-192 of the ephemeral
// and the recipient's public keys, the key HSalsa20 of the X25519 shared
// secret), one scalar multiplication per payload instead of two.
func (k Keys) openAnonymous(sealed []byte) ([]byte, bool) {
	if len(sealed) < box.AnonymousOverhead {
		return nil, false
	}
	priv := k.priv
	if priv == nil {
		var err error
		if priv, err = ecdh.X25519().NewPrivateKey(k.Private[:]); err != nil {
			return nil, false
		}
	}
	eph, err := ecdh.X25519().NewPublicKey(sealed[:32])
	if err != nil {
		return nil, false
	}
	shared, err := priv.ECDH(eph)
	if err != nil {
		return nil, false // a low-order ephemeral key: not a box sealed to us
	}
	h, err := blake2b.New(24, nil)
	if err != nil {
		return nil, false
	}
	h.Write(sealed[:32])
	h.Write(k.Public[:])
	var nonce [24]byte
	h.Sum(nonce[:0])
	var key [32]byte
	copy(key[:], shared)
	salsa.HSalsa20(&key, &zeros, &key, &salsa.Sigma)
	return secretbox.Open(nil, sealed[32:], &nonce, &key)
}
