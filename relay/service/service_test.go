package service_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/service"
)

// fixture is a service over a real database with one user and one
// device, without any transport.
type fixture struct {
	svc *service.Service
	db  *relaydb.DB
	dev relay.Device
}

func newFixture(t *testing.T, gmail bool) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := relaydb.Open(ctx, filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.AddUser(ctx, "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	dev, _, err := db.AddDevice(ctx, "ann@example.com", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	cfg := service.Config{DB: db, PublicURL: "https://relay.example.com/"}
	if gmail {
		// relay-ping only: without token keys nothing calls Google.
		cfg.Gmail = gmailscout.New(gmailscout.Config{DB: db, Topic: "projects/p/topics/t"})
	}
	return &fixture{svc: service.New(cfg), db: db, dev: dev}
}

func codeOf(err error) service.Code {
	var e *service.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// A configuration operation is applied once: its replay gets the first
// answer and changes nothing; a refusal says why in the service's words.
func TestConfigureAppliesOnce(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	hash := relaydb.HashToken("hook-secret")
	op := service.ConfigOp{ID: "op-1", Type: protocol.TypeScoutRegister,
		Scout: protocol.ScoutConfig{ScoutID: "sc_hook", Kind: relay.KindWebhook, Name: "CI", Enabled: true, HookTokenHash: hash}}
	res, err := f.svc.Configure(ctx, f.dev, op)
	if err != nil || !res.OK || res.HookURL != "https://relay.example.com/api/v1/hooks/sc_hook" {
		t.Fatalf("register: %+v, %v", res, err)
	}
	replay := op
	replay.Scout.Name = "renamed by a replay"
	if again, err := f.svc.Configure(ctx, f.dev, replay); err != nil || again != res {
		t.Fatalf("replay: %+v, %v; want the first answer %+v", again, err, res)
	}
	if sc, _ := f.db.Scout(ctx, "sc_hook"); sc.Name != "CI" {
		t.Fatalf("a replay changed the scout: %+v", sc)
	}
	for _, tc := range []struct {
		op   service.ConfigOp
		want service.Code
	}{
		{service.ConfigOp{ID: "op-2", Type: protocol.TypeScoutRegister, Scout: protocol.ScoutConfig{ScoutID: "sc_x", Kind: "folder", Name: "x"}}, service.Invalid},
		{service.ConfigOp{ID: "op-3", Type: protocol.TypeScoutRegister, Scout: protocol.ScoutConfig{ScoutID: "sc_x", Kind: relay.KindGmail, Name: "x",
			Email: "ann@example.com", Mode: protocol.ModeRelayPing}}, service.Invalid}, // no Gmail here
		{service.ConfigOp{ID: "op-4", Type: protocol.TypeScoutDisable, Scout: protocol.ScoutConfig{ScoutID: "sc_missing"}}, service.NotFound},
		{service.ConfigOp{ID: "op-5", Type: protocol.TypeScoutUpdate, Scout: protocol.ScoutConfig{ScoutID: "sc_hook", Kind: relay.KindWebhook, Name: "n\x00"}}, service.Invalid},
	} {
		if res, err := f.svc.Configure(ctx, f.dev, tc.op); codeOf(err) != tc.want || res.OK {
			t.Errorf("%s %+v: %+v, %v; want %s", tc.op.Type, tc.op.Scout, res, err, tc.want)
		}
	}
	// Another user's scout id is refused as theirs.
	if _, err := f.db.AddUser(ctx, "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	bob, _, _ := f.db.AddDevice(ctx, "bob@example.com", "desk")
	bobOp := service.ConfigOp{ID: "op-b", Type: protocol.TypeScoutUpdate, Scout: op.Scout}
	if _, err := f.svc.Configure(ctx, bob, bobOp); codeOf(err) != service.Forbidden {
		t.Fatalf("another user's scout: %v; want %s", err, service.Forbidden)
	}
}

// A webhook item is refused, in this order, for a missing or wrong
// token, a disabled scout, a body that is not one item, an account
// without a device to seal for; once accepted, a repeated key is the
// first item.
func TestHookRefusalsAndRepeats(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	op := service.ConfigOp{ID: "op-1", Type: protocol.TypeScoutRegister,
		Scout: protocol.ScoutConfig{ScoutID: "sc_hook", Kind: relay.KindWebhook, Name: "CI", Enabled: true, HookTokenHash: relaydb.HashToken("tok")}}
	if _, err := f.svc.Configure(ctx, f.dev, op); err != nil {
		t.Fatal(err)
	}
	post := func(token, body, key string) (service.HookQueued, error) {
		return f.svc.Hook(ctx, service.HookRequest{ScoutID: "sc_hook", Token: token, Body: strings.NewReader(body), IdempotencyKey: key})
	}
	for _, tc := range []struct {
		token, body string
		want        service.Code
	}{
		{"", `{"title":"a"}`, service.Unauthorized},
		{"wrong", `not even JSON`, service.Unauthorized},
		{"tok", `{"title":"a"} {"title":"b"}`, service.Invalid},
		{"tok", `{"title":"   "}`, service.Invalid},
		{"tok", `{"title":"a"}`, service.NoDevice},
	} {
		if _, err := post(tc.token, tc.body, ""); codeOf(err) != tc.want {
			t.Errorf("token %q, body %s: %v; want %s", tc.token, tc.body, err, tc.want)
		}
	}
	if _, err := f.svc.Admit(ctx, protocol.Hello{Token: "no such token", PublicKey: make([]byte, 32)}); codeOf(err) != service.Unauthorized {
		t.Fatalf("an unknown device token: %v", err)
	}
	if err := f.db.DeviceConnected(ctx, f.dev.ID, make([]byte, 32), ""); err != nil {
		t.Fatal(err)
	}
	first, err := post("tok", `{"title":"a"}`, "k1")
	if err != nil || first.Duplicate {
		t.Fatalf("first post: %+v, %v", first, err)
	}
	if again, err := post("tok", `{"title":"a"}`, "k1"); err != nil || !again.Duplicate || again.ID != first.ID {
		t.Fatalf("repeated key: %+v, %v; want the first item %s", again, err, first.ID)
	}
	if _, err := f.svc.Configure(ctx, f.dev, service.ConfigOp{ID: "op-2", Type: protocol.TypeScoutDisable,
		Scout: protocol.ScoutConfig{ScoutID: "sc_hook"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := post("tok", `{"title":"a"}`, ""); codeOf(err) != service.Disabled {
		t.Fatalf("a disabled scout: %v", err)
	}
}

// A Gmail push is kept before it is answered; one that cannot be read is
// Malformed (Pub/Sub must not redeliver it), and a relay without Gmail
// scouts has nothing to take it.
func TestPushKeepsTheHint(t *testing.T) {
	ctx := context.Background()
	if err := newFixture(t, false).svc.Push(ctx, []byte(`{}`)); codeOf(err) != service.NotFound {
		t.Fatalf("a relay without Gmail: %v", err)
	}
	f := newFixture(t, true)
	if err := f.svc.Push(ctx, []byte(`{"message":{"data":"!!"}}`)); codeOf(err) != service.Malformed {
		t.Fatalf("a malformed push: %v", err)
	}
	data := base64.StdEncoding.EncodeToString([]byte(`{"emailAddress":"Ann@Example.com","historyId":4321}`))
	body, _ := json.Marshal(map[string]any{"message": map[string]string{"data": data, "messageId": "1"}})
	if err := f.svc.Push(ctx, body); err != nil {
		t.Fatal(err)
	}
	hints, err := f.db.PushHints(ctx, 10)
	if err != nil || len(hints) != 1 || hints[0].Email != "ann@example.com" || hints[0].HistoryID != 4321 {
		t.Fatalf("hints kept: %+v, %v", hints, err)
	}
}
