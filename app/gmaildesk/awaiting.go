package gmaildesk

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// awaitStore keeps a scout's awaited sent mail (awaiting reply) in the
// desktop's database.
type awaitStore struct {
	db      *localdb.DB
	scoutID string
}

func (a awaitStore) AwaitedThreads(ctx context.Context, ids []string) (map[string]gmail.Awaited, error) {
	rows, err := a.db.AwaitedThreads(ctx, a.scoutID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]gmail.Awaited, len(rows))
	for id, r := range rows {
		out[id] = fromRow(r)
	}
	return out, nil
}

func (a awaitStore) ToCheck(ctx context.Context, now, stale time.Time) ([]gmail.Awaited, error) {
	rows, err := a.db.AwaitedToCheck(ctx, a.scoutID, now, stale)
	if err != nil {
		return nil, err
	}
	out := make([]gmail.Awaited, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	return out, nil
}

func (a awaitStore) SaveAwaited(ctx context.Context, list []gmail.Awaited) error {
	rows := make([]localdb.Awaited, 0, len(list))
	for _, w := range list {
		r := localdb.Awaited{ThreadID: w.ThreadID, MessageID: w.MessageID, Subject: w.Subject, Snippet: w.Snippet,
			SentAt: w.SentAt, DueAt: w.DueAt, State: string(w.State), CardRef: w.CardRef, CheckedAt: w.CheckedAt}
		for _, to := range w.Recipients {
			r.Recipients = append(r.Recipients, localdb.AwaitedRecipient{Name: to.Name, Addr: to.Addr})
		}
		rows = append(rows, r)
	}
	return a.db.SaveAwaited(ctx, a.scoutID, rows)
}

func fromRow(r localdb.Awaited) gmail.Awaited {
	w := gmail.Awaited{ThreadID: r.ThreadID, MessageID: r.MessageID, Subject: r.Subject, Snippet: r.Snippet,
		SentAt: r.SentAt, DueAt: r.DueAt, State: gmail.AwaitState(r.State), CardRef: r.CardRef, CheckedAt: r.CheckedAt}
	for _, to := range r.Recipients {
		w.Recipients = append(w.Recipients, triage.Address{Name: to.Name, Addr: to.Addr})
	}
	return w
}
