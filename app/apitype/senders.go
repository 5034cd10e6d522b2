package apitype

import "time"

// The Senders view (docs/desktop.md, "Senders"): a scout's senders and
// mailing lists ranked by volume, approve rate and last approval, and
// "unsubscribe and screen".

// Sender is one sender or mailing list of a scout, from its cards. Key
// names it in requests: "sender:ADDRESS" or "list:LIST-ID" (Of and Value
// apart). ApproveRate is approved ÷ (approved + rejected), null while
// none is decided; spam counts as rejected. Unsubscribe is the way its
// newest mail that offered one offered to unsubscribe: "one-click" (RFC
// 8058), "mailto" or "link" (a page the person opens); empty when none is
// known. Screened is the screener rule naming it, if any; Unsubscribed
// its latest unsubscription, if one was asked for.
type Sender struct {
	Key          string                `json:"key"`
	Of           string                `json:"of"`
	Value        string                `json:"value"`
	Name         string                `json:"name"`
	Cards        int                   `json:"cards"`
	Approved     int                   `json:"approved"`
	Rejected     int                   `json:"rejected"`
	Pending      int                   `json:"pending"`
	ApproveRate  *float64              `json:"approve_rate"`
	LastCard     time.Time             `json:"last_card"`
	LastApproval *time.Time            `json:"last_approval,omitempty"`
	Unsubscribe  string                `json:"unsubscribe,omitempty"`
	Screened     *ScreenerRule         `json:"screened,omitempty"`
	Unsubscribed *SenderUnsubscription `json:"unsubscribed,omitempty"`
}

// SenderUnsubscription is a sender's gmail.unsubscribe: the card it is
// recorded on and its number there (retry and drop it like any action),
// its state and error, and once done how it went (Method) — for a list
// that offers only a web page, Link is the page the window opens for the
// person.
type SenderUnsubscription struct {
	SuggestionID string    `json:"suggestion_id"`
	N            int       `json:"n"`
	State        string    `json:"state"`
	Error        string    `json:"error,omitempty"`
	Method       string    `json:"method,omitempty"`
	Link         string    `json:"link,omitempty"`
	At           time.Time `json:"at"`
}

// SenderList is GET /api/v1/scouts/{id}/senders: ranked, most cards
// first, then the lowest approve rate, then the longest since an
// approval.
type SenderList struct {
	ScoutID string   `json:"scout_id"`
	Senders []Sender `json:"senders"`
}

// UnsubscribeSenders is the body of POST
// /api/v1/scouts/{id}/senders/unsubscribe: the keys of the senders to
// unsubscribe from and screen, one or several (one confirmation in the
// window).
type UnsubscribeSenders struct {
	Senders []string `json:"senders"`
}

// UnsubscribeOutcome is what "unsubscribe and screen" did for one sender:
// Queued when its unsubscription was queued now (false: asked before, or
// no way is known — Note says which); Rule the screener rule written
// (absent when one screened it already: AlreadyScreened); Settled the
// cards from it that were waiting, rejected in Screened. Sender is as it
// is now.
type UnsubscribeOutcome struct {
	Sender          Sender       `json:"sender"`
	Queued          bool         `json:"queued"`
	Rule            *Rule        `json:"rule,omitempty"`
	AlreadyScreened bool         `json:"already_screened,omitempty"`
	Settled         []Suggestion `json:"settled,omitempty"`
	Note            string       `json:"note,omitempty"`
}

// UnsubscribeResult is what POST …/senders/unsubscribe did, sender by
// sender, in the order asked.
type UnsubscribeResult struct {
	Outcomes []UnsubscribeOutcome `json:"outcomes"`
}
