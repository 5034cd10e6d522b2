package pushauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/relay/pushauth"
)

const (
	audience = "https://relay.example.com/api/v1/scouts/webhooks/gmail"
	pushSA   = "gmail-push@scouts-prod.iam.gserviceaccount.com"
)

func request(token, query string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/scouts/webhooks/gmail"+query, strings.NewReader("{}"))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// Pub/Sub's OIDC tokens are verified against the (fake) Google keys: the
// real one passes; forged, expired, wrong-audience, wrong-email and
// unverified ones are refused, as is a request with no token.
func TestOIDCPushTokens(t *testing.T) {
	fake := oauthfake.New(oauthfake.Options{})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ep := oauthfake.EndpointsAt(srv.URL)
	v, err := pushauth.New(pushauth.Config{Audience: audience, ServiceAccount: pushSA, JWKSURL: ep.Certs})
	if err != nil {
		t.Fatal(err)
	}
	good := oauthfake.IDClaims{Audience: audience, Email: pushSA, EmailVerified: true}
	if err := v.Verify(context.Background(), request(fake.MintIDToken(good), "")); err != nil {
		t.Fatalf("valid push token refused: %v", err)
	}
	schemeless := good
	schemeless.Issuer = "accounts.google.com" // Google uses both forms
	if err := v.Verify(context.Background(), request(fake.MintIDToken(schemeless), "")); err != nil {
		t.Fatalf("token with Google's scheme-less issuer refused: %v", err)
	}
	cases := map[string]oauthfake.IDClaims{
		"forged":         {Audience: audience, Email: pushSA, EmailVerified: true, ForeignKey: true},
		"expired":        {Audience: audience, Email: pushSA, EmailVerified: true, IssuedAt: time.Now().Add(-3 * time.Hour), Expiry: time.Now().Add(-2 * time.Hour)},
		"wrong audience": {Audience: "https://evil.example/hook", Email: pushSA, EmailVerified: true},
		"wrong email":    {Audience: audience, Email: "attacker@evil-project.iam.gserviceaccount.com", EmailVerified: true},
		"unverified":     {Audience: audience, Email: pushSA, EmailVerified: false},
		"wrong issuer":   {Issuer: "https://issuer.evil.example", Audience: audience, Email: pushSA, EmailVerified: true},
	}
	for name, c := range cases {
		err := v.Verify(context.Background(), request(fake.MintIDToken(c), ""))
		var pe *pushauth.Error
		if err == nil {
			t.Errorf("%s token accepted", name)
		} else if !asError(err, &pe) {
			t.Errorf("%s: %v is not a *pushauth.Error", name, err)
		}
	}
	if err := v.Verify(context.Background(), request("", "")); err == nil {
		t.Error("request without a token accepted")
	}
	if err := v.Verify(context.Background(), request("not.a.jwt", "")); err == nil {
		t.Error("garbage token accepted")
	}
}

func TestSecretAndConfig(t *testing.T) {
	v, err := pushauth.New(pushauth.Config{Secret: "0123456789abcdef-s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(context.Background(), request("", "?token=0123456789abcdef-s3cret")); err != nil {
		t.Fatalf("right secret refused: %v", err)
	}
	for _, q := range []string{"", "?token=wrong", "?token=0123456789abcdef-s3cre"} {
		if err := v.Verify(context.Background(), request("", q)); err == nil {
			t.Errorf("query %q accepted", q)
		}
	}
	for name, cfg := range map[string]pushauth.Config{
		"nothing":       {},
		"audience only": {Audience: audience},
		"short secret":  {Secret: "short"},
	} {
		if _, err := pushauth.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func asError(err error, target **pushauth.Error) bool {
	pe, ok := err.(*pushauth.Error)
	*target = pe
	return ok
}
