package triage

import (
	"strings"
)

// Heuristic is one built-in check. Heuristics read headers and labels only,
// never the body, and are deterministic: the same mail always gets the same
// answer, and the answer can be explained in one line.
type Heuristic struct {
	// Name appears in the decision path as "heuristic:<Name>".
	Name string
	// Why says what the check relies on and why that is a fair signal; it
	// is the documentation of the check (docs/triage.md repeats it).
	Why string
	// Check returns a decision (its Path is filled in by the pipeline) when
	// the heuristic is sure enough to decide, false otherwise.
	Check func(m *Message) (Decision, bool)
}

// Gmail system label ids read by the heuristics.
const (
	LabelSpam       = "SPAM"
	LabelTrash      = "TRASH"
	LabelPromotions = "CATEGORY_PROMOTIONS"
)

// DefaultHeuristics returns the built-in heuristics in the order they are
// tried; the first that decides wins. The strongest evidence comes first:
// what Gmail itself concluded, then forged senders, then mail that is
// legitimate but needs no card, and last the combination of weak signs.
func DefaultHeuristics() []Heuristic {
	return []Heuristic{
		{
			Name: "label-spam",
			Why: "Gmail already put the mail in Spam. Gmail's filter sees what we never see " +
				"(sender reputation, volumes across all mailboxes, user reports), so its verdict is the " +
				"strongest content-free signal available. A user rule can still rescue a sender.",
			Check: checkLabelSpam,
		},
		{
			Name: "auth-fail",
			Why: "The receiving server's Authentication-Results (the topmost header: the ones below it " +
				"could be written by the sender) says the sender is forged: DMARC failed for a domain " +
				"whose owner asks receivers to quarantine or reject such mail, or SPF failed hard with no " +
				"valid DKIM signature to vouch for the mail. DMARC failures under a \"none\" policy are " +
				"ignored: mailing lists cause them routinely.",
			Check: checkAuthFail,
		},
		{
			Name: "label-trash",
			Why: "The mail is already in the Trash: the person, or one of their Gmail filters, discarded " +
				"it before the scout looked. A card would only bring it back.",
			Check: checkLabelTrash,
		},
		{
			Name: "auto-reply",
			Why: "Auto-Submitted: auto-replied (RFC 3834) marks replies written by a machine: " +
				"out-of-office notices, bounces, delivery reports. They are legitimate but carry nothing to " +
				"act on, so they are skipped, not called spam. Auto-generated mail (notifications) is not " +
				"skipped: a notification can be the very thing a scout is for.",
			Check: checkAutoReply,
		},
		{
			Name: "precedence-junk",
			Why: "Precedence: junk is the sender saying the mail is of no importance (vacation programs " +
				"and bulk senders use it to ask for no replies). Skipped, not spam. Precedence: bulk and " +
				"list are NOT used: every mailing list sets them, and list mail is often exactly what a " +
				"person reads.",
			Check: checkPrecedenceJunk,
		},
		{
			Name: "label-promotions",
			Why: "Gmail filed the mail under Promotions: marketing the person signed up for. Legitimate, " +
				"rarely something to act on: skipped, not spam. An allow rule brings a sender back.",
			Check: checkLabelPromotions,
		},
		{
			Name: "suspicious-headers",
			Why: "Two or more weak signs together: no visible recipient (the person was Bcc'd on a mass " +
				"mailing), a long visible list of recipients at many organisations (a harvested list), a subject in capitals or with !!!, a display name that is itself an address at " +
				"another domain (\"support@bank.com\" <x@elsewhere>), a sender with no readable address, a " +
				"Date header no mailer would write. Each alone happens in honest mail; two together rarely.",
			Check: checkSuspicious,
		},
		{
			Name: "automated-bulk",
			Why: "A no-reply sender that also marks the mail as bulk (List-Unsubscribe, or Precedence bulk " +
				"or list) and is not a discussion list (no List-Id): a newsletter or marketing blast that " +
				"cannot be answered. Skipped, not spam. Transactional mail (receipts, alerts) from no-reply " +
				"addresses normally has no unsubscribe link and still reaches the next step.",
			Check: checkAutomatedBulk,
		},
	}
}

func checkLabelSpam(m *Message) (Decision, bool) {
	if !m.HasLabel(LabelSpam) {
		return Decision{}, false
	}
	return Decision{Verdict: Spam, Reason: "Gmail filed it as spam.", Confidence: 0.95}, true
}

func checkLabelTrash(m *Message) (Decision, bool) {
	if !m.HasLabel(LabelTrash) {
		return Decision{}, false
	}
	return Decision{Verdict: Skip, Reason: "Already in the Trash.", Confidence: 0.9}, true
}

func checkLabelPromotions(m *Message) (Decision, bool) {
	if !m.HasLabel(LabelPromotions) {
		return Decision{}, false
	}
	return Decision{Verdict: Skip, Reason: "Gmail filed it under Promotions.", Confidence: 0.7}, true
}

func checkAuthFail(m *Message) (Decision, bool) {
	if len(m.AuthResults) == 0 {
		return Decision{}, false
	}
	ar := ParseAuthResults(m.AuthResults[0])
	if ar.Has("dmarc", "fail") {
		policy, disposition := ar.DMARCPolicy()
		if isEnforcing(policy) || isEnforcing(disposition) {
			return Decision{Verdict: Spam, Confidence: 0.9,
				Reason: "The sender's domain did not authorise this mail (DMARC failed)."}, true
		}
	}
	if ar.Has("spf", "fail") && !ar.Has("dkim", "pass") && !ar.Has("dmarc", "pass") {
		return Decision{Verdict: Spam, Confidence: 0.8,
			Reason: "Sent from a server the sender's domain does not allow (SPF failed, no valid DKIM signature)."}, true
	}
	return Decision{}, false
}

func isEnforcing(policy string) bool { return policy == "reject" || policy == "quarantine" }

func checkAutoReply(m *Message) (Decision, bool) {
	if m.AutoSubmitted != "auto-replied" {
		return Decision{}, false
	}
	return Decision{Verdict: Skip, Reason: "An automatic reply (out of office, bounce or receipt).", Confidence: 0.85}, true
}

func checkPrecedenceJunk(m *Message) (Decision, bool) {
	if m.Precedence != "junk" {
		return Decision{}, false
	}
	return Decision{Verdict: Skip, Reason: "The sender marked it as junk (Precedence: junk).", Confidence: 0.7}, true
}

func checkSuspicious(m *Message) (Decision, bool) {
	signs := WeakSigns(m)
	if len(signs) < 2 {
		return Decision{}, false
	}
	reasons := make([]string, len(signs))
	for i, s := range signs {
		reasons[i] = s.Reason
	}
	return Decision{Verdict: Spam, Confidence: 0.6, Reason: capitalise(strings.Join(reasons, "; ")) + "."}, true
}

func checkAutomatedBulk(m *Message) (Decision, bool) {
	if !IsNoReply(m.From) || m.ListID != "" {
		return Decision{}, false
	}
	if m.ListUnsubscribe == "" && m.Precedence != "bulk" && m.Precedence != "list" {
		return Decision{}, false
	}
	return Decision{Verdict: Skip, Confidence: 0.6,
		Reason: "A bulk mailing from a no-reply address (a newsletter or marketing)."}, true
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
