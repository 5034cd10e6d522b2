package gmailscout

import (
	"context"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
)

// cardCache holds the cards of freshly triaged mail in memory, briefly, so
// a proposal delivered right away needs no second fetch (five quota units
// saved per message). It is bounded and never written anywhere.
type cardCache struct {
	now func() time.Time
	ttl time.Duration
	max int

	mu sync.Mutex
	m  map[string]cachedCard
}

type cachedCard struct {
	card   gmail.Card
	reason string
	at     time.Time
}

func newCardCache(now func() time.Time, ttl time.Duration, max int) *cardCache {
	return &cardCache{now: now, ttl: ttl, max: max, m: map[string]cachedCard{}}
}

func (c *cardCache) put(scoutID, ref string, card gmail.Card, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.m) >= c.max {
		for k, v := range c.m {
			if now.Sub(v.at) > c.ttl || len(c.m) >= c.max {
				delete(c.m, k)
			}
		}
	}
	c.m[scoutID+"/"+ref] = cachedCard{card: card, reason: reason, at: now}
}

// take returns and forgets a card: once delivered it is not needed again
// (a redelivery fetches it anew).
func (c *cardCache) take(scoutID, ref string) (cachedCard, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := scoutID + "/" + ref
	v, ok := c.m[k]
	delete(c.m, k)
	if !ok || c.now().Sub(v.at) > c.ttl {
		return cachedCard{}, false
	}
	return v, true
}

// Enrich fills a Gmail proposal's subject, sender and snippet at delivery:
// from memory when the mail was just triaged, else fetched from Gmail —
// transiently either way. A failure leaves them empty; the desktop shows
// the card and can read the mail itself.
func (s *Service) Enrich(ctx context.Context, row relay.QueueItem, p *protocol.Proposal) {
	if row.SourceType != relay.KindGmail {
		return
	}
	if c, ok := s.cards.take(row.ScoutID, row.SourceRef); ok {
		p.Subject, p.Sender, p.Snippet, p.Reason = c.card.Subject, c.card.Sender, c.card.Snippet, c.reason
		return
	}
	sc, err := s.db.GmailScout(ctx, row.ScoutID)
	if err != nil || sc.Mode != relay.ModeRelayTriage || !sc.Enabled {
		return
	}
	client, err := s.client(ctx, sc)
	if err != nil {
		return
	}
	m, err := client.Metadata(ctx, row.SourceRef)
	if err != nil {
		s.log.Debug("gmail: card at delivery", "scout", row.ScoutID, "err", err)
		return
	}
	card := m.Card()
	p.Subject, p.Sender, p.Snippet = card.Subject, card.Sender, card.Snippet
}
