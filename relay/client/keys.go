package client

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay/protocol"
)

// Keys is a device's X25519 key pair.
type Keys struct {
	Public, Private [32]byte
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
	return k, nil
}

// OpenWebhook opens a proposal's sealed webhook payload.
func (k Keys) OpenWebhook(sealed []byte) (protocol.WebhookPayload, error) {
	var p protocol.WebhookPayload
	plain, ok := box.OpenAnonymous(nil, sealed, &k.Public, &k.Private)
	if !ok {
		return p, errors.New("client: sealed payload cannot be opened with this device's key")
	}
	if err := json.Unmarshal(plain, &p); err != nil {
		return p, fmt.Errorf("client: sealed payload: %w", err)
	}
	return p, nil
}
