package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
)

// HookRequest is an item posted to a webhook scout.
type HookRequest struct {
	ScoutID string
	// Token is the bearer token the request carried ("" if none).
	Token string
	// Body is read only once the token is checked; the transport bounds
	// it, and a read error is returned as the cause of a Malformed
	// refusal (the transport recognises its own limit's).
	Body io.Reader
	// IdempotencyKey makes a repeat within a day get the first answer.
	IdempotencyKey string
}

// HookQueued is an accepted item: its queue row, or the first one's for
// a repeat (Duplicate).
type HookQueued struct {
	ID        string
	Seq       int64
	Duplicate bool
}

// Hook takes an item for a webhook scout. The content is sealed to each
// of the user's devices before anything is stored: the relay keeps only
// ciphertext it cannot open.
func (s *Service) Hook(ctx context.Context, req HookRequest) (HookQueued, error) {
	if req.Token == "" {
		return HookQueued{}, refuse(Unauthorized, "missing bearer token")
	}
	// The scout and the keys to seal for, read together before the token
	// is checked: one query per request, whatever its outcome.
	sc, keys, err := s.db.HookTarget(ctx, req.ScoutID)
	// Unknown scout and wrong token answer alike, so that scout ids cannot
	// be probed.
	if err != nil || sc.Kind != relay.KindWebhook || sc.HookTokenHash == "" ||
		subtle.ConstantTimeCompare([]byte(relaydb.HashToken(req.Token)), []byte(sc.HookTokenHash)) != 1 {
		if err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
			s.log.Error("hook: load scout", "err", err)
			return HookQueued{}, unavailable(err)
		}
		return HookQueued{}, refuse(Unauthorized, "unknown webhook or wrong token")
	}
	if !sc.Enabled {
		return HookQueued{}, refuse(Disabled, "this webhook's scout is disabled")
	}
	in, err := readHookItem(req.Body)
	if err != nil {
		return HookQueued{}, err
	}
	if len(req.IdempotencyKey) > 255 {
		return HookQueued{}, refuse(Invalid, "Idempotency-Key is longer than 255 bytes")
	}
	if len(keys) == 0 {
		return HookQueued{}, s.noDevice(ctx, sc.UserID)
	}
	sealed, err := s.seal(in, keys)
	if err != nil {
		s.log.Error("hook: seal", "err", err)
		return HookQueued{}, &Error{Code: Internal, Message: "internal error", Err: err}
	}
	item := relaydb.NewItem{UserID: sc.UserID, ScoutID: sc.ID, SourceType: relay.KindWebhook, Verdict: "relevant",
		Reason: "Posted to the webhook of scout " + sc.Name, Sealed: sealed}
	if req.IdempotencyKey != "" {
		item.IdempotencyKeyHash = relaydb.HashToken(req.IdempotencyKey)
	}
	row, dup, err := s.db.Enqueue(ctx, item)
	if err != nil {
		s.log.Error("hook: enqueue", "scout", sc.ID, "err", err)
		return HookQueued{}, unavailable(err)
	}
	// Per request only at debug: at info a busy webhook wrote a line per
	// item (4 % of the relay's CPU); scouts_relay_webhook_requests_total
	// counts them.
	s.log.Debug("hook item queued", "scout", sc.ID, "user", sc.UserID, "item", row.ID, "seq", row.Seq, "duplicate", dup)
	return HookQueued{ID: row.ID, Seq: row.Seq, Duplicate: dup}, nil
}

// readHookItem reads and checks a webhook body: exactly one JSON object
// of title, body and url, its text as sent.
func readHookItem(r io.Reader) (protocol.WebhookPayload, error) {
	var in protocol.WebhookPayload
	body, err := io.ReadAll(r)
	if err != nil {
		return in, &Error{Code: Malformed, Message: "could not read the body: " + err.Error(), Err: err}
	}
	// encoding/json would replace invalid bytes and lone surrogate
	// escapes with U+FFFD: the item would differ from what was sent,
	// silently.
	if msg := hookTextProblem(body); msg != "" {
		return in, refuse(Invalid, msg)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, refuse(Invalid, "body must be JSON {\"title\": …, \"body\": …, \"url\": …}: "+err.Error())
	}
	// Decode stops after the first value: a second object would be
	// dropped without a word.
	if _, err := dec.Token(); err != io.EOF {
		return in, refuse(Invalid, "body must hold exactly one JSON object; found more data after the JSON object")
	}
	return in, CheckHookItem(in)
}

// CheckHookItem checks a webhook item's fields: a title of 1 to 1000
// bytes, and a url, if any, that is an http(s) URL.
func CheckHookItem(in protocol.WebhookPayload) error {
	switch {
	case strings.TrimSpace(in.Title) == "":
		return refuse(Invalid, "title is required")
	case len(in.Title) > 1000:
		return refuse(Invalid, "title is longer than 1000 bytes")
	}
	if in.URL != "" {
		u, err := url.Parse(in.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return refuse(Invalid, "url must be an http(s) URL")
		}
	}
	return nil
}

// noDevice says why an account has no device to seal for. Either way
// the request is fine: the account cannot take it in its present state,
// and it can again once a device connects.
func (s *Service) noDevice(ctx context.Context, userID string) error {
	revoked, err := s.db.EveryDeviceRevoked(ctx, userID)
	if err != nil {
		s.log.Error("hook: count devices", "err", err)
		return unavailable(err)
	}
	if revoked {
		return refuse(DevicesRevoked, "every device of this account is revoked, so the item cannot be sealed for any and was not queued; add a device (scouts-relay device add) and connect its desktop")
	}
	return refuse(NoDevice, "no device of this account has connected to the relay yet, so the item cannot be sealed for one; start the desktop agent with this relay first")
}

// seal seals an item for each device, in the format the device opens.
func (s *Service) seal(in protocol.WebhookPayload, keys map[string]relay.SealTarget) (map[string][]byte, error) {
	plain, _ := json.Marshal(in)
	defer clear(plain)
	sealed := make(map[string][]byte, len(keys))
	for dev, k := range keys {
		if len(k.PublicKey) != 32 {
			continue
		}
		var pub [32]byte
		copy(pub[:], k.PublicKey)
		var ct []byte
		var err error
		if k.Seal == protocol.SealBatchV1 {
			ct, err = s.sealer.Seal(pub, plain)
		} else {
			ct, err = box.SealAnonymous(nil, plain, &pub, rand.Reader)
		}
		if err != nil {
			return nil, err
		}
		sealed[dev] = ct
	}
	return sealed, nil
}
