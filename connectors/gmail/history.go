package gmail

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	gmailapi "google.golang.org/api/gmail/v1"
)

// Added is a message that arrived in the mailbox.
type Added struct {
	ID       string
	ThreadID string
	Labels   []string
}

// skipLabels mark mail that is never triaged: Gmail's own spam verdict,
// the bin, the user's drafts and what the user sent.
var skipLabels = []string{"SPAM", "TRASH", "DRAFT", "SENT"}

// Skipped reports whether a message with these labels is left alone.
func Skipped(labels []string) bool {
	for _, l := range labels {
		if slices.Contains(skipLabels, l) {
			return true
		}
	}
	return false
}

// historyPage is the largest page history.list allows.
const historyPage = 500

// History lists the messages added after the history id start, a page at
// a time, and returns the mailbox's history id as of the last page: the
// next cursor. It does not restrict to the Inbox (the user's filters may
// have moved the mail) but leaves out spam, trash, drafts and sent mail.
// A cursor Gmail no longer keeps gives ErrHistoryGone.
func (c *Client) History(ctx context.Context, start uint64, page func(context.Context, []Added) error) (next uint64, err error) {
	return c.HistoryWithSent(ctx, start, page, nil)
}

// HistoryWithSent is History that also hands the mail the person sent
// (label SENT, not a draft) to sent, in the same pages' order: a desktop
// learner reads its recipients. A nil sent leaves sent mail out.
func (c *Client) HistoryWithSent(ctx context.Context, start uint64, page, sent func(context.Context, []Added) error) (next uint64, err error) {
	seen := map[string]bool{}
	token := ""
	for {
		var r *gmailapi.ListHistoryResponse
		err := c.call(ctx, "history.list", unitsHistoryList, func() (err error) {
			call := c.svc.Users.History.List("me").StartHistoryId(start).
				HistoryTypes("messageAdded").MaxResults(historyPage).Context(ctx)
			if token != "" {
				call = call.PageToken(token)
			}
			r, err = call.Do()
			return err
		})
		if isStatus(err, http.StatusNotFound) {
			return 0, fmt.Errorf("%w: start %d", ErrHistoryGone, start)
		}
		if err != nil {
			return 0, err
		}
		var batch, mine []Added
		for _, h := range r.History {
			for _, a := range h.MessagesAdded {
				m := a.Message
				if m == nil || m.Id == "" || seen[m.Id] {
					continue
				}
				seen[m.Id] = true
				if sent != nil && slices.Contains(m.LabelIds, "SENT") && !slices.Contains(m.LabelIds, "DRAFT") {
					mine = append(mine, Added{ID: m.Id, ThreadID: m.ThreadId, Labels: m.LabelIds})
					continue
				}
				if Skipped(m.LabelIds) {
					continue
				}
				batch = append(batch, Added{ID: m.Id, ThreadID: m.ThreadId, Labels: m.LabelIds})
			}
		}
		if len(mine) > 0 {
			if err := sent(ctx, mine); err != nil {
				return 0, err
			}
		}
		if len(batch) > 0 {
			if err := page(ctx, batch); err != nil {
				return 0, err
			}
		}
		next = max(next, r.HistoryId)
		if r.NextPageToken == "" {
			return max(next, start), nil
		}
		token = r.NextPageToken
	}
}

// Backfill lists up to limit messages received after since, newest first,
// for when the history cursor is gone: the window Gmail's history no longer
// covers is re-read from the message list instead. more reports that the
// window held more than limit messages (the oldest were not listed).
func (c *Client) Backfill(ctx context.Context, since time.Time, limit int) (ids []Added, more bool, err error) {
	q := "-in:spam -in:trash -in:drafts -in:sent"
	if !since.IsZero() {
		q = "after:" + strconv.FormatInt(since.Unix(), 10) + " " + q
	}
	token := ""
	for {
		var r *gmailapi.ListMessagesResponse
		err := c.call(ctx, "messages.list", unitsMessageList, func() (err error) {
			call := c.svc.Users.Messages.List("me").Q(q).MaxResults(int64(min(limit-len(ids), historyPage))).Context(ctx)
			if token != "" {
				call = call.PageToken(token)
			}
			r, err = call.Do()
			return err
		})
		if err != nil {
			return nil, false, err
		}
		for _, m := range r.Messages {
			if len(ids) == limit {
				return ids, true, nil
			}
			ids = append(ids, Added{ID: m.Id, ThreadID: m.ThreadId})
		}
		if r.NextPageToken == "" {
			return ids, false, nil
		}
		if len(ids) == limit {
			return ids, true, nil
		}
		token = r.NextPageToken
	}
}

// IsHistoryGone reports whether err is ErrHistoryGone.
func IsHistoryGone(err error) bool { return errors.Is(err, ErrHistoryGone) }
