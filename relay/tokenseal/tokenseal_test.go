package tokenseal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpenAndRotate(t *testing.T) {
	oldLine, newLine := NewKeyLine("2026-01"), NewKeyLine("2026-11")
	old, err := Parse(oldLine)
	if err != nil {
		t.Fatal(err)
	}
	token := []byte("1//0refresh-token-of-ann")
	aad := []byte("scout:s1")
	blob := old.Seal(token, aad)
	if bytes.Contains(blob, token) {
		t.Fatal("sealed blob holds the token in clear")
	}
	if again := old.Seal(token, aad); bytes.Equal(again, blob) {
		t.Fatal("two seals of one token are equal: the nonce is not fresh")
	}
	// Rotation: the new key seals, the old one still opens.
	rotated, err := Parse("# current first\n" + newLine + "\n\n" + oldLine + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rotated.Open(blob, aad); err != nil || !bytes.Equal(got, token) {
		t.Fatalf("open under rotated keys: %q, %v", got, err)
	}
	if id, _ := KeyID(rotated.Seal(token, aad)); id != "2026-11" {
		t.Fatalf("new seals use key %q, want the first (2026-11)", id)
	}
	if id, _ := KeyID(blob); id != "2026-01" {
		t.Fatalf("KeyID = %q", id)
	}
	// Another scout's aad, a flipped bit, a dropped key: refused.
	if _, err := rotated.Open(blob, []byte("scout:s2")); err == nil {
		t.Fatal("a token sealed for s1 opened for s2")
	}
	flipped := bytes.Clone(blob)
	flipped[len(flipped)-1] ^= 1
	if _, err := rotated.Open(flipped, aad); err == nil {
		t.Fatal("an altered blob opened")
	}
	onlyNew, _ := Parse(newLine)
	if _, err := onlyNew.Open(blob, aad); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("dropped key: %v, want ErrUnknownKey", err)
	}
	if _, err := rotated.Open([]byte{9, 9}, aad); err == nil {
		t.Fatal("garbage opened")
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "# nothing\n", "nokey", "k:notbase64!", "k:" + strings.Repeat("A", 8), NewKeyLine("a") + "\n" + NewKeyLine("a")} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}

func TestLoadRefusesWorldReadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(p, []byte(NewKeyLine("k1")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Load of a 0644 file: %v", err)
	}
	os.Chmod(p, 0o600)
	if _, err := Load(p); err != nil {
		t.Fatal(err)
	}
}
