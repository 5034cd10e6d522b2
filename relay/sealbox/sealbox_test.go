package sealbox_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay/sealbox"
)

func device(t testing.TB) (*ecdh.PrivateKey, [32]byte) {
	t.Helper()
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var pub [32]byte
	copy(pub[:], priv.PublicKey().Bytes())
	return priv, pub
}

func ephemeral(sealed []byte) string { return string(sealed[1:33]) }

func TestSealedItemsOpenOnlyWithTheDevicesKey(t *testing.T) {
	priv, pub := device(t)
	other, _ := device(t)
	var s sealbox.Sealer
	plain := []byte(`{"title":"Invoice 42 is due"}`)
	sealed, err := s.Seal(pub, plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("Invoice")) {
		t.Fatal("the plaintext is visible in the sealed payload")
	}
	got, err := sealbox.NewOpener(priv).Open(sealed)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("open = %q, %v", got, err)
	}
	if _, err := sealbox.NewOpener(other).Open(sealed); !errors.Is(err, sealbox.ErrNotBatch) {
		t.Fatalf("another device opened it: %v", err)
	}
	for i := 1; i < len(sealed); i++ {
		bad := bytes.Clone(sealed)
		bad[i] ^= 0x40
		if _, err := sealbox.NewOpener(priv).Open(bad); err == nil {
			t.Fatalf("a payload changed at byte %d opened", i)
		}
	}
	if _, err := sealbox.NewOpener(priv).Open(sealed[:sealbox.Overhead-1]); err == nil {
		t.Fatal("a truncated payload opened")
	}
}

// Two items of one epoch share the ephemeral key but never a nonce; the
// epoch ends after MaxUses items or MaxAge, whichever comes first.
func TestEpochsAreBoundedByUsesAndAge(t *testing.T) {
	priv, pub := device(t)
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	s := sealbox.Sealer{MaxUses: 3, MaxAge: time.Minute, Now: func() time.Time { return now }}
	var items [][]byte
	for range 4 {
		b, err := s.Seal(pub, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, b)
	}
	if ephemeral(items[0]) != ephemeral(items[2]) {
		t.Fatal("items within an epoch have different ephemeral keys")
	}
	if ephemeral(items[2]) == ephemeral(items[3]) {
		t.Fatal("the fourth item reused an epoch of three")
	}
	if string(items[0][33:57]) == string(items[1][33:57]) {
		t.Fatal("two items share a nonce")
	}
	now = now.Add(time.Minute)
	late, _ := s.Seal(pub, []byte("x"))
	if ephemeral(late) == ephemeral(items[3]) {
		t.Fatal("an epoch outlived its age")
	}
	o := sealbox.NewOpener(priv)
	for i, b := range append(items, late) {
		if got, err := o.Open(b); err != nil || string(got) != "x" {
			t.Fatalf("item %d: %q, %v", i, got, err)
		}
	}
}

// Rows queued before a relay sealed in batches are anonymous sealed boxes;
// the opener refuses them (rather than returning garbage) so the caller
// can open them the old way, even when their first byte looks like a tag.
func TestAnAnonymousSealedBoxIsNotABatchPayload(t *testing.T) {
	priv, pub := device(t)
	o := sealbox.NewOpener(priv)
	seenTagged := false
	for i := 0; i < 2000 && !seenTagged; i++ {
		anon, err := box.SealAnonymous(nil, []byte("an old row, queued before the relay sealed in batches"), &pub, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		seenTagged = sealbox.IsBatch(anon)
		if _, err := o.Open(anon); !errors.Is(err, sealbox.ErrNotBatch) {
			t.Fatalf("an anonymous box opened as batch-v1: %v", err)
		}
	}
	if !seenTagged {
		t.Skip("no anonymous box started with the tag byte in 2000 tries")
	}
}

func TestSealingFromManyGoroutines(t *testing.T) {
	priv, pub := device(t)
	var s sealbox.Sealer
	o := sealbox.NewOpener(priv)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				msg := []byte{byte(g), byte(i)}
				b, err := s.Seal(pub, msg)
				if err == nil {
					var got []byte
					got, err = o.Open(b)
					if err == nil && !bytes.Equal(got, msg) {
						err = errors.New("opened to different bytes")
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkSeal compares an item sealed in an epoch with the anonymous
// sealed box it replaces.
func BenchmarkSeal(b *testing.B) {
	_, pub := device(b)
	plain := bytes.Repeat([]byte("a webhook body "), 20)
	b.Run("anonymous", func(b *testing.B) {
		for b.Loop() {
			if _, err := box.SealAnonymous(nil, plain, &pub, rand.Reader); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("batch-v1", func(b *testing.B) {
		var s sealbox.Sealer
		for b.Loop() {
			if _, err := s.Seal(pub, plain); err != nil {
				b.Fatal(err)
			}
		}
	})
}
