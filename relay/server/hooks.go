package server

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
)

// MaxHookBody bounds a webhook request's body.
const MaxHookBody = 64 << 10

// HookAccepted is the answer to an accepted webhook request. A duplicate
// (same Idempotency-Key within a day) gets the first answer again.
type HookAccepted struct {
	ID        string `json:"id"`
	Duplicate bool   `json:"duplicate"`
}

// handleHook receives an item for a webhook scout. The content is sealed
// to each of the user's devices before anything is stored: the relay keeps
// only ciphertext it cannot open.
func (s *Server) handleHook(w http.ResponseWriter, r *http.Request) {
	res := "accepted"
	defer func() { s.metrics.hookRequests.WithLabelValues(res).Inc() }()
	fail := func(status int, code, msg string) {
		res = code
		writeJSONError(w, status, code, msg)
	}
	scoutID := r.PathValue("scout")
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		fail(http.StatusUnauthorized, "unauthorized", "missing bearer token")
		return
	}
	// The scout and the keys to seal for, read together before the token
	// is checked: one query per request, whatever its outcome.
	sc, keys, err := s.db.HookTarget(r.Context(), scoutID)
	// Unknown scout and wrong token answer alike, so that scout ids cannot
	// be probed.
	if err != nil || sc.Kind != relay.KindWebhook || sc.HookTokenHash == "" ||
		subtle.ConstantTimeCompare([]byte(relaydb.HashToken(tok)), []byte(sc.HookTokenHash)) != 1 {
		if err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
			s.log.Error("hook: load scout", "err", err)
			fail(http.StatusServiceUnavailable, "unavailable", "try again later")
			return
		}
		fail(http.StatusUnauthorized, "unauthorized", "unknown webhook or wrong token")
		return
	}
	if !sc.Enabled {
		fail(http.StatusGone, "disabled", "this webhook's scout is disabled")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxHookBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			fail(http.StatusRequestEntityTooLarge, "too_large", "body is larger than 64 KiB")
			return
		}
		fail(http.StatusBadRequest, "invalid", "could not read the body: "+err.Error())
		return
	}
	// encoding/json would replace invalid bytes and lone surrogate
	// escapes with U+FFFD: the item would differ from what was sent,
	// silently.
	if msg := hookTextProblem(body); msg != "" {
		fail(http.StatusBadRequest, "invalid", msg)
		return
	}
	var in protocol.WebhookPayload
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fail(http.StatusBadRequest, "invalid", "body must be JSON {\"title\": …, \"body\": …, \"url\": …}: "+err.Error())
		return
	}
	// Decode stops after the first value: a second object would be
	// dropped without a word.
	if _, err := dec.Token(); err != io.EOF {
		fail(http.StatusBadRequest, "invalid", "body must hold exactly one JSON object; found more data after the JSON object")
		return
	}
	if msg := validateHook(in); msg != "" {
		fail(http.StatusBadRequest, "invalid", msg)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if len(key) > 255 {
		fail(http.StatusBadRequest, "invalid", "Idempotency-Key is longer than 255 bytes")
		return
	}
	if len(keys) == 0 {
		// 409 either way: the request is fine, the account cannot take it
		// in its present state, and it can again once a device connects.
		revoked, err := s.db.EveryDeviceRevoked(r.Context(), sc.UserID)
		if err != nil {
			s.log.Error("hook: count devices", "err", err)
			fail(http.StatusServiceUnavailable, "unavailable", "try again later")
			return
		}
		if revoked {
			fail(http.StatusConflict, "devices_revoked", "every device of this account is revoked, so the item cannot be sealed for any and was not queued; add a device (scouts-relay device add) and connect its desktop")
			return
		}
		fail(http.StatusConflict, "no_device", "no device of this account has connected to the relay yet, so the item cannot be sealed for one; start the desktop agent with this relay first")
		return
	}
	plain, _ := json.Marshal(in)
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
			s.log.Error("hook: seal", "err", err)
			fail(http.StatusInternalServerError, "internal", "internal error")
			return
		}
		sealed[dev] = ct
	}
	clear(plain)
	item := relaydb.NewItem{UserID: sc.UserID, ScoutID: sc.ID, SourceType: relay.KindWebhook, Verdict: "relevant",
		Reason: "Posted to the webhook of scout " + sc.Name, Sealed: sealed}
	if key != "" {
		item.IdempotencyKeyHash = relaydb.HashToken(key)
	}
	row, dup, err := s.db.Enqueue(r.Context(), item)
	if err != nil {
		s.log.Error("hook: enqueue", "scout", sc.ID, "err", err)
		fail(http.StatusServiceUnavailable, "unavailable", "try again later")
		return
	}
	if dup {
		res = "duplicate"
	}
	// Per request only at debug: at info a busy webhook wrote a line per
	// item (4 % of the relay's CPU); scouts_relay_webhook_requests_total
	// counts them.
	s.log.Debug("hook item queued", "scout", sc.ID, "user", sc.UserID, "item", row.ID, "seq", row.Seq, "duplicate", dup)
	writeJSON(w, http.StatusAccepted, HookAccepted{ID: row.ID, Duplicate: dup})
}

func validateHook(in protocol.WebhookPayload) string {
	switch {
	case strings.TrimSpace(in.Title) == "":
		return "title is required"
	case len(in.Title) > 1000:
		return "title is longer than 1000 bytes"
	}
	if in.URL != "" {
		u, err := url.Parse(in.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "url must be an http(s) URL"
		}
	}
	return ""
}
