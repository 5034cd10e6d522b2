//go:build chaos

package chaos

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay/tokenseal"
)

const pushSecret = "chaos-push-secret-0123456789"

// pubsub plays Pub/Sub's push delivery to the relay: at least once and in
// no particular order. Each notification Gmail publishes is pushed one to
// three times, held back and shuffled with the next few, and now and then
// an old one is pushed again (stale). A push not answered 2xx is retried,
// as Pub/Sub redelivers.
type pubsub struct {
	endpoint string
	in       chan []byte
	rng      *rand.Rand // used by run's goroutine only
	hc       *http.Client
	msgID    atomic.Int64

	published, handled                      atomic.Int64
	pushes, dups, stale, reordered, retried atomic.Int64
	// handledNow fires after each notification handled.
	handledNow wake.Wake
}

func newPubsub(seed uint64) *pubsub {
	return &pubsub{in: make(chan []byte, 100_000), rng: rand.New(rand.NewPCG(seed, 1)), hc: &http.Client{Timeout: 10 * time.Second}}
}

// publish is gmailfake's Options.Publish.
func (p *pubsub) publish(_ context.Context, _ string, data []byte) error {
	p.published.Add(1)
	p.in <- bytes.Clone(data)
	return nil
}

func (p *pubsub) run(ctx context.Context) {
	var held, past [][]byte
	for {
		var flushSoon <-chan time.Time
		if len(held) > 0 {
			// Pub/Sub's delivery delay, during which later notifications
			// can overtake earlier ones.
			flushSoon = time.After(5 * time.Millisecond)
		}
		select {
		case d := <-p.in:
			held = append(held, d)
			if len(held) < 1+p.rng.IntN(5) {
				continue
			}
		case <-flushSoon:
		case <-ctx.Done():
			return
		}
		if len(held) > 1 {
			p.reordered.Add(int64(len(held)))
			p.rng.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
		}
		for _, d := range held {
			n := 1 + p.rng.IntN(3)
			p.dups.Add(int64(n - 1))
			for range n {
				p.push(ctx, d)
			}
			if len(past) > 0 && p.rng.IntN(3) == 0 {
				p.stale.Add(1)
				p.push(ctx, past[p.rng.IntN(len(past))])
			}
			past = append(past, d)
			p.handled.Add(1)
			p.handledNow.Fire()
		}
		held = held[:0]
	}
}

// push delivers one notification until the relay answers 2xx.
func (p *pubsub) push(ctx context.Context, data []byte) {
	env, _ := json.Marshal(map[string]any{
		"message":      map[string]string{"data": base64.StdEncoding.EncodeToString(data), "messageId": fmt.Sprint(p.msgID.Add(1))},
		"subscription": "projects/chaos/subscriptions/gmail-push",
	})
	wait := 10 * time.Millisecond
	for {
		p.pushes.Add(1)
		res, err := p.hc.Post(p.endpoint, "application/json", bytes.NewReader(env))
		if err == nil {
			res.Body.Close()
			if res.StatusCode/100 == 2 {
				return
			}
		}
		p.retried.Add(1)
		// Pub/Sub's redelivery backoff, not synchronisation.
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(wait*2, 300*time.Millisecond)
	}
}

// gmailPushChaos: a relay-triage scout fed by pushes that come twice,
// out of order and stale (the fallback poll is pushed out of reach, so
// pushes and the relay's own restarts are all that drive it), with the
// relay killed at random points. Each message must be one queue row at
// the relay and one suggestion on the desktop.
func gmailPushChaos(t *testing.T, s *scenario) {
	const messages, kills = 400, 5
	ps := newPubsub(s.rng.Uint64())
	g := newGoogle(t, ps.publish)
	keys := filepath.Join(t.TempDir(), "token-keys")
	if err := os.WriteFile(keys, []byte(tokenseal.NewKeyLine("k1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := oauthfake.EndpointsAt(g.oauthURL)
	w := &world{relay: startRelay(t, s.bins, filepath.Join(t.TempDir(), "relay.db"), nil,
		"--gmail", "--google-client-id", oauthfake.DefaultClientID, "--google-client-secret", oauthfake.DefaultClientSecret,
		"--google-token-url", ep.Token, "--gmail-api-url", g.gmailURL, "--gmail-topic", "projects/chaos/topics/gmail",
		"--token-keys-file", keys, "--push-secret", pushSecret, "--gmail-poll", "1h")}
	w.openDB(t)
	ps.endpoint = w.relay.url + "/api/v1/scouts/webhooks/gmail?token=" + pushSecret
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go ps.run(ctx)

	token := w.relay.newDevice(t, gmailUser)
	home := t.TempDir()
	w.agent = startAgent(t, s.bins, filepath.Join(home, "data"), home, []string{keyringPass},
		append(g.agentFlags(t), "--relay", w.relay.url, "--device-token-file", token)...)
	g.connect(t, s.ctx, w.agent)
	sc := g.createScout(t, s.ctx, w.agent, "relay-triage")
	s.logf("relay-triage scout watching")
	// A push for a mailbox nobody watches changes nothing.
	ps.publish(ctx, "", []byte(`{"emailAddress":"stranger@example.com","historyId":42}`))

	killAt := s.points(kills, 10, messages-10)
	var ids []string
	for len(ids) < messages {
		ids = append(ids, g.deliver(t, len(ids), min(s.between(1, 12), messages-len(ids)))...)
		if len(killAt) > 0 && len(ids) >= killAt[0] {
			// Some of this burst's pushes are still held or in flight.
			w.relay.restart(t)
			s.res.kills++
			killAt = killAt[1:]
		}
		untilCount(t, s.ctx, "pushes answered", ps.published.Load(), ps.handled.Load, ps.handledNow.Next)
	}
	s.logf("%d messages delivered, every push answered", len(ids))
	answered := time.Now()
	by, err := waitCards(t, s.ctx, w.agent, sc.ID, ids)
	if err != nil {
		t.Errorf("not every message became a card: %v", err)
	}
	s.logf("every message is a card")
	s.res.note("the last card arrived %.1f s after the last push was answered", time.Since(answered).Seconds())
	w.settle(t, s.ctx)
	w.checkAcked(t, s.ctx)
	s.logf("the desktop caught up with the relay, every row acknowledged")
	// Every persisted push is handled and removed, duplicates and stale
	// ones included.
	hctx, cancel := context.WithTimeout(s.ctx, 45*time.Second)
	defer cancel()
	var hints int
	// Polled: the relays, killed at random, delete hints in their own
	// database and tell the test nothing.
	if err := waitFor(hctx, func() bool {
		return w.db.QueryRowContext(hctx, `SELECT COUNT(*) FROM push_inbox`).Scan(&hints) == nil && hints == 0
	}); err != nil {
		t.Errorf("%d push hints never handled: %v", hints, err)
	}
	s.logf("every push hint handled")
	if by, err = waitCards(t, s.ctx, w.agent, sc.ID, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := queueRows(s.ctx, w, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	r := s.res
	r.accepted = len(ids)
	var lost, dup []string
	for _, id := range ids {
		n := len(by[id])
		if n == 0 || rows[id] == 0 {
			lost = append(lost, id)
		}
		if n > 1 || rows[id] > 1 {
			dup = append(dup, id)
			r.duplicated += max(n, rows[id]) - 1
		}
		if n > 0 {
			r.suggested++
		}
		delete(by, id)
	}
	for id, list := range by { // cards of no delivered message
		dup = append(dup, id)
		r.duplicated += len(list)
	}
	r.lost = len(lost)
	if len(lost)+len(dup) > 0 {
		t.Errorf("lost %v; duplicated %v\nrelay log:\n%s", head(lost), head(dup), w.relay.log.String())
	}
	r.note("%d pushes for %d notifications: %d duplicates, %d stale, %d reordered, %d retried while the relay was down",
		ps.pushes.Load(), ps.handled.Load(), ps.dups.Load(), ps.stale.Load(), ps.reordered.Load(), ps.retried.Load())
}

// queueRows counts the relay's queue rows per message of a scout.
func queueRows(ctx context.Context, w *world, scoutID string) (map[string]int, error) {
	rows, err := w.db.QueryContext(ctx, w.query(`SELECT source_msg_ref, COUNT(*) FROM triage_queue WHERE scout_id = ? GROUP BY source_msg_ref`), scoutID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var ref string
		var n int
		if err := rows.Scan(&ref, &n); err != nil {
			return nil, err
		}
		out[ref] = n
	}
	return out, rows.Err()
}

// approveArchiveKill: Gmail cards approved as tasks with "archive", the
// agent killed around each approval — at a random moment of the request,
// right after its answer, after Gmail applied the archive and before the
// agent recorded it, or as soon as the stream says the task exists (the
// decision committed, whatever comes after it not yet). A client that got no answer looks at the card
// once the agent is back, as the window does: still pending, the person
// approves again; approved, there is nothing left to click. Each card
// must end as one task and its message archived, however many times the
// change was sent.
func approveArchiveKill(t *testing.T, s *scenario) {
	const cards = 24 // six of each kind of crash
	g := newGoogle(t, nil)
	home := t.TempDir()
	a := startAgent(t, s.bins, filepath.Join(home, "data"), home, []string{keyringPass}, g.agentFlags(t)...)
	g.connect(t, s.ctx, a)
	sc := g.createScout(t, s.ctx, a, "local")
	ids := g.deliver(t, 0, cards)
	by, err := waitCards(t, s.ctx, a, sc.ID, ids)
	if err != nil {
		t.Fatalf("the messages never became cards: %v", err)
	}
	req := apitype.Approve{As: "task", Gmail: &apitype.GmailAction{Archive: true}}
	approve := func(cardID string) error {
		_, err := a.client.Approve(s.ctx, cardID, req)
		var refused *localclient.Error
		if errors.As(err, &refused) && refused.Status < 500 {
			t.Fatalf("approve %s refused: %v", cardID, err)
		}
		return err
	}
	retried, unanswered := 0, 0
	// again is the person back at the card after an approval without an
	// answer.
	again := func(cardID string) {
		sg, err := a.client.Suggestion(s.ctx, cardID)
		if err != nil {
			t.Fatalf("the card %s after the restart: %v", cardID, err)
		}
		unanswered++
		if sg.Status == "pending" {
			retried++
			if err := approve(cardID); err != nil {
				t.Fatalf("approve %s again: %v", cardID, err)
			}
		}
	}
	kinds := []string{"during the request", "after the answer", "between the archive and its record", "on the approval's event"}
	// An approval's time, measured on the answered ones: the crash of the
	// first kind lands anywhere within it.
	took := 15 * time.Millisecond
	for i, id := range ids {
		card := by[id][0]
		switch i % 4 {
		case 0: // at a random moment of the request
			res := make(chan error, 1)
			go func() { res <- approve(card.ID) }()
			// Not a wait for anything: the kill lands at a random moment.
			time.Sleep(time.Duration(s.rng.Int64N(int64(took))))
			a.kill()
			answered := <-res == nil
			a.start(t)
			if !answered {
				again(card.ID)
			}
		case 1: // right after the answer
			began := time.Now()
			if err := approve(card.ID); err != nil {
				t.Fatalf("approve %s: %v", card.ID, err)
			}
			took = time.Since(began)
			a.restart(t)
		case 2: // between the archive and its record
			killed := make(chan struct{})
			p := a.proc
			g.mods.setHook(func(mid string) {
				if mid == id {
					g.mods.setHook(nil)
					p.kill()
					close(killed)
				}
			})
			err := approve(card.ID)
			select {
			case <-killed:
			case <-s.ctx.Done():
				t.Fatalf("the archive of %s never reached Gmail", id)
			}
			a.start(t)
			if err != nil {
				again(card.ID)
			}
		case 3: // on the approval's event
			err := approveKilledOnEvent(t, s.ctx, a, card.ID, approve)
			a.start(t)
			if err != nil {
				again(card.ID)
			}
		}
		s.res.kills++
	}
	// The outbox applies what is left; every message must leave the Inbox.
	wctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	inInbox := func() (out []string) {
		for _, id := range ids {
			if labels, _ := g.gmail.Message(gmailUser, id); slices.Contains(labels, "INBOX") {
				out = append(out, id)
			}
		}
		return out
	}
	waitFor(wctx, func() bool { return len(inInbox()) == 0 }, g.gmail.Next)
	tasks, err := a.client.Entities(s.ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	entities := map[string]int{}
	for _, e := range tasks {
		entities[e.SourceSuggestionID]++
	}
	r := s.res
	r.accepted = cards
	notArchived := inInbox()
	calls := 0
	var lost, dup []string
	for _, id := range ids {
		n := entities[by[id][0].ID]
		calls += g.mods.count(id)
		switch {
		case n == 0 || slices.Contains(notArchived, id) || g.mods.count(id) == 0:
			lost = append(lost, fmt.Sprintf("%s (crash %s: %d tasks, %d archive calls, in the Inbox %v)",
				id, kinds[slices.Index(ids, id)%len(kinds)], n, g.mods.count(id), slices.Contains(notArchived, id)))
		case n > 1:
			dup = append(dup, id)
			r.duplicated += n - 1
		}
		if n > 0 {
			r.suggested++
		}
	}
	r.lost = len(lost)
	if len(lost)+len(dup) > 0 {
		t.Errorf("lost %v; more than one task %v\nagent log:\n%s", lost, dup, a.log.String())
	}
	r.note("%d approvals without an answer, %d of them approved again (the rest had committed); %d archive calls for %d messages (a repeat after a crash between the call and its record changes nothing: archiving is idempotent)",
		unanswered, retried, calls, cards)
}

// approveKilledOnEvent approves a card and SIGKILLs the agent as soon as
// its stream announces the card's task: the decision has committed, and
// the agent may be anywhere in what follows it. It returns the
// approval's error (nil: answered) once the agent is gone.
func approveKilledOnEvent(t *testing.T, ctx context.Context, a *agent, cardID string, approve func(string) error) error {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch, err := a.client.Watch(wctx, 0)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	defer watch.Close()
	p := a.proc
	go func() {
		for {
			ev, err := watch.Next()
			if err != nil {
				return
			}
			var e apitype.Entity
			if ev.Type == "entity.created" && json.Unmarshal(ev.Data, &e) == nil && e.SourceSuggestionID == cardID {
				p.cmd.Process.Signal(syscall.SIGKILL)
				return
			}
		}
	}()
	err = approve(cardID)
	select {
	case <-p.exited:
	case <-ctx.Done():
		t.Fatalf("the stream never announced the task of %s", cardID)
	}
	return err
}
