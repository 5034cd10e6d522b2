package gmail_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
)

// countingRefresher hands out "fake-token-for:ann" and counts how often
// it was told Gmail refused it.
type countingRefresher struct {
	mu          sync.Mutex
	invalidated int
}

func (c *countingRefresher) Token() (*oauth2.Token, error) {
	return &oauth2.Token{AccessToken: "fake-token-for:" + ann, TokenType: "Bearer"}, nil
}

func (c *countingRefresher) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.invalidated++
}

// A 401 is retried once with a refreshed token; when Gmail refuses that
// one too, the account needs reconnecting.
func TestRefusedTokenIsRefreshedOnceThenReconnect(t *testing.T) {
	fake := gmailfake.New(gmailfake.Options{})
	fake.AddMailbox(ann)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	ts := &countingRefresher{}
	c, err := gmail.NewClient(context.Background(), gmail.Options{BaseURL: srv.URL, TokenSource: ts, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	fake.RevokeAll(ann)
	_, _, err = c.Profile(context.Background())
	if !gmail.IsAuth(err) {
		t.Fatalf("want an AuthError, got %v", err)
	}
	if ts.invalidated != 1 {
		t.Fatalf("the token was refreshed %d times, want once", ts.invalidated)
	}
}
