package client

import (
	"crypto/rand"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/box"
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

// BenchmarkOpenWebhook: opening one sealed payload (one X25519 per box).
func BenchmarkOpenWebhook(b *testing.B) {
	k, _ := DeviceKeys("dev_token_one")
	sealed, _ := box.SealAnonymous(nil, []byte(`{"title":"Build 7 failed"}`), &k.Public, rand.Reader)
	for b.Loop() {
		if _, err := k.OpenWebhook(sealed); err != nil {
			b.Fatal(err)
		}
	}
}
