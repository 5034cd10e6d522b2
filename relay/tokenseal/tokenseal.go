// Package tokenseal encrypts the OAuth refresh tokens a relay keeps for
// relay-triage Gmail scouts: AES-256-GCM, a fresh random nonce per seal,
// and the id of the key written into each sealed blob so keys can be
// rotated — a new key seals, old keys still open until every token has
// been resealed or its account reconnected.
//
// The additional data binds a blob to its scout: a sealed token copied to
// another tenant's row does not open.
package tokenseal

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// version is the blob layout: version, key-id length, key id, nonce,
// ciphertext with tag.
const version = 1

// Keys are the relay's token keys.
type Keys struct {
	current string
	aeads   map[string]cipher.AEAD
}

// Parse reads keys, one per line as "ID:BASE64" (32 bytes, standard
// base64); blank lines and #-comments are skipped. The first key is the
// current one, used for new seals; the others only open.
func Parse(text string) (*Keys, error) {
	k := &Keys{aeads: map[string]cipher.AEAD{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		id, b64, ok := strings.Cut(s, ":")
		id = strings.TrimSpace(id)
		if !ok || id == "" || len(id) > 64 {
			return nil, fmt.Errorf("tokenseal: line %d: want ID:BASE64KEY with an id of 1 to 64 bytes", line)
		}
		if _, dup := k.aeads[id]; dup {
			return nil, fmt.Errorf("tokenseal: line %d: key id %q appears twice", line, id)
		}
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
		if err != nil || len(key) != 32 {
			return nil, fmt.Errorf("tokenseal: line %d: key %q must be 32 bytes in standard base64 (generate one with `scouts-relay keys new`)", line, id)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("tokenseal: key %q: %w", id, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("tokenseal: key %q: %w", id, err)
		}
		k.aeads[id] = aead
		if k.current == "" {
			k.current = id
		}
	}
	if k.current == "" {
		return nil, errors.New("tokenseal: no key given")
	}
	return k, nil
}

// Load reads keys from a file, which must not be readable by others.
func Load(path string) (*Keys, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tokenseal: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("tokenseal: %s is readable by others (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenseal: %w", err)
	}
	return Parse(string(b))
}

// NewKeyLine returns a fresh key line "ID:BASE64" for a keys file.
func NewKeyLine(id string) string {
	key := make([]byte, 32)
	rand.Read(key)
	return id + ":" + base64.StdEncoding.EncodeToString(key)
}

// Current is the id of the key that seals.
func (k *Keys) Current() string { return k.current }

// Seal encrypts plaintext for the scout named by aad.
func (k *Keys) Seal(plaintext, aad []byte) []byte {
	aead := k.aeads[k.current]
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	out := make([]byte, 0, 2+len(k.current)+len(nonce)+len(plaintext)+aead.Overhead())
	out = append(out, version, byte(len(k.current)))
	out = append(out, k.current...)
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plaintext, aad)
}

// ErrUnknownKey means a blob was sealed under a key this relay no longer
// has: the user must reconnect the account.
var ErrUnknownKey = errors.New("tokenseal: sealed under a key that is not configured")

// Open decrypts a blob sealed for aad.
func (k *Keys) Open(blob, aad []byte) ([]byte, error) {
	id, rest, err := split(blob)
	if err != nil {
		return nil, err
	}
	aead, ok := k.aeads[id]
	if !ok {
		return nil, fmt.Errorf("%w (key %q)", ErrUnknownKey, id)
	}
	if len(rest) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("tokenseal: sealed token is truncated")
	}
	nonce, ct := rest[:aead.NonceSize()], rest[aead.NonceSize():]
	pt, err := aead.Open(nil, nonce, ct, aad)
	if err != nil {
		return nil, errors.New("tokenseal: sealed token does not open (altered, or sealed for another scout)")
	}
	return pt, nil
}

// KeyID returns the id of the key a blob was sealed under.
func KeyID(blob []byte) (string, error) {
	id, _, err := split(blob)
	return id, err
}

func split(blob []byte) (id string, rest []byte, err error) {
	if len(blob) < 2 || blob[0] != version {
		return "", nil, errors.New("tokenseal: not a sealed token (unknown layout)")
	}
	n := int(blob[1])
	if len(blob) < 2+n {
		return "", nil, errors.New("tokenseal: sealed token is truncated")
	}
	return string(blob[2 : 2+n]), blob[2+n:], nil
}
