package client

import (
	"crypto/rand"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay/sealbox"
)

// What the relay seals with box.SealAnonymous opens with the device's
// keys, whether they come from DeviceKeys or were filled in by hand; any
// other key, or a damaged box, does not open it.
func TestOpenWebhookOpensWhatTheRelaySealed(t *testing.T) {
	k, err := DeviceKeys("dev_token_one")
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.SealAnonymous(nil, []byte(`{"title":"Build 7 failed","body":"step deploy","url":"https://ci.example.com/7"}`), &k.Public, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, keys := range map[string]Keys{"derived": k, "literal": {Public: k.Public, Private: k.Private}} {
		p, err := keys.OpenWebhook(sealed)
		if err != nil || p.Title != "Build 7 failed" || p.Body != "step deploy" || p.URL != "https://ci.example.com/7" {
			t.Fatalf("%s keys: opened %+v, %v", name, p, err)
		}
	}
	other, _ := DeviceKeys("dev_token_two")
	if _, err := other.OpenWebhook(sealed); err == nil || !strings.Contains(err.Error(), "cannot be opened") {
		t.Fatalf("another device's key: %v", err)
	}
	damaged := append([]byte(nil), sealed...)
	damaged[len(damaged)-1] ^= 1
	for name, b := range map[string][]byte{"damaged": damaged, "short": sealed[:box.AnonymousOverhead-1], "empty": nil} {
		if _, err := k.OpenWebhook(b); err == nil {
			t.Fatalf("%s box opened", name)
		}
	}
}

// A relay that seals in batch-v1 (the device said it opens it) is opened
// too, by derived and literal keys alike, and so is an anonymous box that
// happens to start with batch-v1's tag byte (rows queued before the relay
// sealed in batches).
func TestOpenWebhookOpensBatchPayloadsAndOldRows(t *testing.T) {
	k, err := DeviceKeys("dev_token_one")
	if err != nil {
		t.Fatal(err)
	}
	var s sealbox.Sealer
	for i := range 3 {
		sealed, err := s.Seal(k.Public, []byte(`{"title":"Build 8 failed"}`))
		if err != nil {
			t.Fatal(err)
		}
		for name, keys := range map[string]Keys{"derived": k, "literal": {Public: k.Public, Private: k.Private}} {
			if p, err := keys.OpenWebhook(sealed); err != nil || p.Title != "Build 8 failed" {
				t.Fatalf("item %d, %s keys: opened %+v, %v", i, name, p, err)
			}
		}
		other, _ := DeviceKeys("dev_token_two")
		if _, err := other.OpenWebhook(sealed); err == nil {
			t.Fatal("another device's key opened a batch-v1 payload")
		}
	}
	tagged := 0
	for i := 0; i < 3000 && tagged < 3; i++ {
		anon, err := box.SealAnonymous(nil, []byte(`{"title":"Old row","body":"queued before the relay sealed in batches"}`), &k.Public, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if !sealbox.IsBatch(anon) {
			continue
		}
		tagged++
		if p, err := k.OpenWebhook(anon); err != nil || p.Title != "Old row" {
			t.Fatalf("an old row starting with the tag byte: %+v, %v", p, err)
		}
	}
	if tagged == 0 {
		t.Fatal("no anonymous box started with the tag byte in 3000 tries (expected about 12)")
	}
}

// BenchmarkOpenWebhook: opening one sealed payload — an anonymous box (one
// X25519 each) and a batch-v1 payload of an epoch already opened.
func BenchmarkOpenWebhook(b *testing.B) {
	k, _ := DeviceKeys("dev_token_one")
	anon, _ := box.SealAnonymous(nil, []byte(`{"title":"Build 7 failed"}`), &k.Public, rand.Reader)
	var s sealbox.Sealer
	batch, _ := s.Seal(k.Public, []byte(`{"title":"Build 7 failed"}`))
	for name, sealed := range map[string][]byte{"anonymous": anon, "batch-v1": batch} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := k.OpenWebhook(sealed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
