package gmaildesk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// gmail.unsubscribe takes the person off the mailing list a card's mail
// came from, in the best way the mail's headers offer, read from Gmail
// when it runs (the card keeps only which way was offered, never the
// address, which often carries a token for the person):
//
//   - RFC 8058 one-click: a POST of "List-Unsubscribe=One-Click" to the
//     https URI, only when List-Unsubscribe-Post offers it. Never http:,
//     never a redirect followed (an answer 3xx is taken as done: the list
//     has the POST), certificates checked as for any site — which also
//     keeps a hostile header from pointing the POST into the local network,
//     where no publicly trusted certificate names a private address.
//   - mailto: a mail to the list's unsubscribe address, sent from the
//     account through Gmail (messages.send), with the subject and body the
//     URI names.
//   - otherwise a web page: nothing is fetched (a GET may confirm anything,
//     or nothing); the result carries the link and the window opens it for
//     the person.
//
// Run again after a crash with the same key, it takes effect once: the
// mail's Message-ID is made from the key and looked for before sending;
// a one-click POST whose answer was lost is sent again, which a list
// takes as the same unsubscription (unsubscribing twice leaves the
// address unsubscribed once).

// unsubscribeResult is the action's result, kept on the card's trail.
type unsubscribeResult struct {
	Method string `json:"method"`
	// Host is where a one-click POST went; Status its answer.
	Host   string `json:"host,omitempty"`
	Status int    `json:"status,omitempty"`
	// To is the address a mailto unsubscription was sent to, SentID the
	// mail's id in the account's Sent folder.
	To     string `json:"to,omitempty"`
	SentID string `json:"sent_id,omitempty"`
	// Link is the page the person opens when the list offers nothing
	// else.
	Link string `json:"link,omitempty"`
	Note string `json:"note,omitempty"`
}

func (x executor) unsubscribe(ctx context.Context, client *gmail.Client, account string, inv engine.Invocation) (json.RawMessage, error) {
	m, err := client.Metadata(ctx, inv.Suggestion.SourceRef)
	if err != nil {
		return nil, err
	}
	u := m.Triage.Unsubscribe()
	var res unsubscribeResult
	switch {
	case u.OneClick != "":
		res, err = postOneClick(ctx, u.OneClick)
	case u.Mailto != "":
		res, err = sendUnsubscribe(ctx, client, account, u.Mailto, inv.Key)
	case u.Link != "":
		res = unsubscribeResult{Method: triage.UnsubscribeLink, Link: u.Link,
			Note: "the list offers only a web page to unsubscribe; open it: " + u.Link}
	default:
		return nil, scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: the email offers no way to unsubscribe (it has no usable List-Unsubscribe header)")
	}
	if err != nil {
		return nil, err
	}
	out, _ := json.Marshal(res)
	return out, nil
}

// postOneClick is RFC 8058 §3.2: a POST whose body is
// "List-Unsubscribe=One-Click", form-encoded, without cookies or
// credentials.
func postOneClick(ctx context.Context, target string) (unsubscribeResult, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return unsubscribeResult{}, scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: one-click unsubscription is only sent to an https address")
	}
	client := &http.Client{Timeout: 30 * time.Second,
		// Never followed: a redirect could lead to http: or elsewhere,
		// and the POST has reached the list already.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		return unsubscribeResult{}, scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "scouts (RFC 8058 one-click unsubscribe)")
	resp, err := client.Do(req)
	if err != nil {
		return unsubscribeResult{}, fmt.Errorf("gmail.unsubscribe: one-click POST to %s: %w", u.Host, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 400:
		return unsubscribeResult{Method: triage.UnsubscribeOneClick, Host: u.Host, Status: c}, nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return unsubscribeResult{}, fmt.Errorf("gmail.unsubscribe: one-click POST to %s: the list answered %s", u.Host, resp.Status)
	default:
		return unsubscribeResult{}, scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: one-click POST to %s: the list refused it (%s)", u.Host, resp.Status)
	}
}

// sendUnsubscribe sends the mail a mailto: URI describes (RFC 6068): to
// its address, with its subject and body ("unsubscribe" when it names
// none), from the account. The Message-ID is made from the action's key
// and looked for first, so a send repeated after a crash sends nothing.
func sendUnsubscribe(ctx context.Context, client *gmail.Client, account, target, key string) (unsubscribeResult, error) {
	to, subject, body, err := parseMailto(target)
	if err != nil {
		return unsubscribeResult{}, err
	}
	sum := sha256.Sum256([]byte(account + "\x00" + key))
	msgID := "<unsubscribe." + hex.EncodeToString(sum[:12]) + "@scouts.invalid>"
	res := unsubscribeResult{Method: triage.UnsubscribeMailto, To: to}
	if res.SentID, err = client.SentMessageID(ctx, msgID); err != nil {
		return res, err
	}
	if res.SentID != "" {
		res.Note = "sent before (found in the account's mail by its Message-ID)"
		return res, nil
	}
	var raw strings.Builder
	fmt.Fprintf(&raw, "From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\n",
		account, to, mime.QEncoding.Encode("utf-8", subject), msgID, time.Now().Format(time.RFC1123Z))
	raw.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	raw.WriteString(strings.ReplaceAll(body, "\n", "\r\n") + "\r\n")
	res.SentID, err = client.Send(ctx, []byte(raw.String()))
	return res, err
}

// parseMailto reads a mailto: URI's one address and its subject and body.
func parseMailto(target string) (to, subject, body string, err error) {
	u, err := url.Parse(target)
	if err != nil || !strings.EqualFold(u.Scheme, "mailto") {
		return "", "", "", scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: not a mailto: address")
	}
	addr, err := url.PathUnescape(u.Opaque)
	if err != nil {
		return "", "", "", scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: mailto: %v", err)
	}
	a, err := mail.ParseAddress(addr)
	if err != nil {
		return "", "", "", scouts.Errorf(scouts.EInvalid, "gmail.unsubscribe: the list's unsubscribe address %q is not one address", addr)
	}
	q := u.Query()
	// One line each: a header must not be split by what a list wrote.
	subject = strings.Join(strings.Fields(q.Get("subject")), " ")
	if subject == "" {
		subject = "unsubscribe"
	}
	body = strings.ReplaceAll(q.Get("body"), "\r", "")
	if strings.TrimSpace(body) == "" {
		body = "unsubscribe"
	}
	return a.Address, subject, body, nil
}
