package apitype

// The screener (docs/triage.md, "The screener"): on the first card from a
// new sender, list or folder, "always show" and "always screen" it.

// ScreenerOffer is on the first card of its scout from a sender (a list,
// a folder) that no screener rule names yet: the window shows the two
// keys on it. Of is "sender", "list" or "folder"; Value the address, the
// List-Id or the folder's path (ending in /).
type ScreenerOffer struct {
	Of    string `json:"of"`
	Value string `json:"value"`
}

// ScreenerRule is on a card a screener rule decided: which rule, what it
// chose ("show" or "screen"), of what, since when (a date,
// "2026-12-03"), and the card's why line in words ("you screened this
// sender on 3 Dec").
type ScreenerRule struct {
	RuleID string `json:"rule_id"`
	Choice string `json:"choice"`
	Of     string `json:"of"`
	Since  string `json:"since"`
	Why    string `json:"why"`
}

// ScreenSender is the body of POST /api/v1/suggestions/{id}/screen-sender:
// "show" or "screen".
type ScreenSender struct {
	Choice string `json:"choice"`
}

// ScreenSenderResult is what a screener key did: the rule it wrote (first
// in the scout's rules), the rule of the other choice it replaced if any,
// and the cards from the sender that were waiting, as they are now.
type ScreenSenderResult struct {
	Choice   string       `json:"choice"`
	Of       string       `json:"of"`
	Value    string       `json:"value"`
	Rule     Rule         `json:"rule"`
	Replaced string       `json:"replaced,omitempty"`
	Settled  []Suggestion `json:"settled"`
}
