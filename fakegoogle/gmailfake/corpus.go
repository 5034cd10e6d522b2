package gmailfake

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

// CorpusOptions chooses what LoadCorpus delivers.
type CorpusOptions struct {
	// Groups to load; nil is corpus.DevGroups(). Only development groups
	// are accepted: the held-out ones must never reach a mailbox the
	// product is tuned against.
	Groups []corpus.Group
	// Limit caps the number of messages (0: all). Groups are interleaved,
	// so that a small limit still mixes spam and ham.
	Limit int
	// SpamToSpam delivers spam with the SPAM label, as if Gmail's filter
	// had caught it. By default spam lands in INBOX like everything else,
	// since judging it is the product's job.
	SpamToSpam bool
}

// LoadCorpus delivers SpamAssassin corpus messages into a mailbox and
// returns how many it delivered.
func LoadCorpus(s *Server, email string, c *corpus.Corpus, o CorpusOptions) (n int, err error) {
	groups := o.Groups
	if groups == nil {
		groups = corpus.DevGroups()
	}
	var lists [][]corpus.Item
	for _, g := range groups {
		if !slices.Contains(corpus.DevGroups(), g) {
			return 0, fmt.Errorf("gmailfake: corpus group %s is not a development group (allowed: %v)", g, corpus.DevGroups())
		}
		items, err := c.Load(g)
		if err != nil {
			return 0, fmt.Errorf("gmailfake: loading corpus group %s: %w", g, err)
		}
		lists = append(lists, items)
	}
	for i := 0; ; i++ {
		more := false
		for _, items := range lists {
			if i >= len(items) {
				continue
			}
			more = true
			if o.Limit > 0 && n >= o.Limit {
				return n, nil
			}
			it := items[i]
			var labels []string
			if o.SpamToSpam && it.Group.Spam() {
				labels = []string{"SPAM"}
			}
			if _, _, err := s.Deliver(email, stripMboxLine(it.Raw), labels...); err != nil {
				return n, fmt.Errorf("gmailfake: delivering corpus message %s/%s: %w", it.Group, it.Name, err)
			}
			n++
		}
		if !more {
			return n, nil
		}
	}
}

// stripMboxLine drops the "From sender date" line the corpus files start
// with: it is an mbox separator, never part of mail delivered to Gmail.
func stripMboxLine(raw []byte) []byte {
	if !bytes.HasPrefix(raw, []byte("From ")) {
		return raw
	}
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		return raw[i+1:]
	}
	return raw
}
