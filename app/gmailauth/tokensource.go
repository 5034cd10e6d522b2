package gmailauth

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/oauth2"
)

// TokenSource returns the account's tokens, refreshing the access token
// when it is about to expire and saving every refreshed token back to the
// keyring, so that a restart reuses it instead of refreshing again. ctx
// is used for the refresh requests (and oauth2.HTTPClient in it) and must
// live as long as the source.
//
// Errors: ErrNotConnected when the keyring has no entry for email, the
// keyring's own (secrets.ErrLocked, ...), and from Token an
// *AuthExpiredError (errors.Is ErrReconnect) once Google refuses the
// refresh token.
func (m *Manager) TokenSource(ctx context.Context, email string) (oauth2.TokenSource, error) {
	rec, err := m.load(email)
	if err != nil {
		return nil, err
	}
	return &savingSource{m: m, ctx: ctx, conf: m.oauthConfig(""), rec: rec}, nil
}

// savingSource caches like oauth2.ReuseTokenSource but judges expiry on
// the Manager's clock rather than the wall clock, and saves what it
// refreshes. The refresh itself is x/oauth2's: a token source seeded with
// only the refresh token, which therefore refreshes at once.
type savingSource struct {
	m    *Manager
	ctx  context.Context
	conf *oauth2.Config

	mu  sync.Mutex
	rec *record
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.rec.Token
	if cur.AccessToken != "" && s.m.cfg.Now().Before(cur.Expiry.Add(-expiryMargin)) {
		t := *cur
		return &t, nil
	}
	tok, err := s.conf.TokenSource(s.ctx, &oauth2.Token{RefreshToken: cur.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return nil, &AuthExpiredError{Email: s.rec.Email, Err: err}
		}
		return nil, fmt.Errorf("gmailauth: refresh the access token of %s: %w", s.rec.Email, err)
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = cur.RefreshToken
	}
	s.m.setExpiry(tok)
	next := *s.rec
	next.Token = tok
	if err := s.m.save(&next); err != nil {
		// The refresh token is unchanged, so the stored entry still
		// works; only this access token is not kept for a restart.
		s.m.log.Warn("gmailauth: could not save the refreshed token", "email", s.rec.Email, "err", err)
	}
	s.rec = &next
	t := *tok
	return &t, nil
}

// Invalidate forgets the access token: Gmail refused it before its expiry
// (Google may end one early while the refresh token stays good), so the
// next Token refreshes it, and saves the new one. It makes the source a
// gmail.Refresher.
func (s *savingSource) Invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := *s.rec
	tok := *s.rec.Token
	tok.AccessToken = ""
	next.Token = &tok
	s.rec = &next
}
