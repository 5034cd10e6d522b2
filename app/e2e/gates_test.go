package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// postCounter is a webhook receiver that counts the posts it was sent,
// per path.
type postCounter struct {
	mu    sync.Mutex
	posts map[string]int
}

func (p *postCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.posts[r.URL.Path]++
	p.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}

func (p *postCounter) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.posts[path]
}

// TestGatesBlockAndRaiseOneAlarm, over real processes (issue 20, item 4):
//
//   - storm: a folder scout whose rule posts a webhook for each new file,
//     allowed without approval, with notify_per_hour 2 set through the
//     learning settings, is given four files: the receiver gets exactly
//     two posts, the other two cards show their post blocked with the
//     storm reason and action.blocked on their trail, and the scout has
//     one open action_storm alarm, not two;
//   - anti-flap: on another scout, a card approved with a post, undone and
//     approved again within the cooldown posts once: the second post is
//     blocked "blocked: same …", and the scout has one action_flap alarm.
func TestGatesBlockAndRaiseOneAlarm(t *testing.T) {
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	rcv := &postCounter{posts: map[string]int{}}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	a := startAgent(t, dataDir, home)

	folder := func(name string) (apitype.Scout, string) {
		t.Helper()
		dir := filepath.Join(home, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: name, Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		return sc, dir
	}
	drop := func(dir, name string) {
		t.Helper()
		tmp := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(tmp, []byte("Something about "+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// posts returns a card's webhook.post actions as its plan records them.
	posts := func(id string) []apitype.PlanAction {
		p, err := a.client.Plan(ctx, id, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []apitype.PlanAction
		for _, x := range p.Actions {
			if x.Action == "webhook.post" && x.N != 0 {
				out = append(out, x)
			}
		}
		return out
	}
	settled := func(x apitype.PlanAction) bool { return x.State == "done" || x.State == "failed" }
	openAlarms := func(scoutID string) []apitype.Alarm {
		all, err := a.client.Alarms(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		var mine []apitype.Alarm
		for _, al := range all {
			if al.ScoutID == scoutID && al.Status == "open" {
				mine = append(mine, al)
			}
		}
		return mine
	}
	blockedOnTrail := func(c apitype.Suggestion, gate string) bool {
		trail, err := a.client.Audit(ctx, c.TraceID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range trail {
			if e.Type == "action.blocked" && e.Refs["gate"] == gate {
				return true
			}
		}
		return false
	}

	// Storm.
	storm, stormDir := folder("Storm")
	cur, err := a.client.Learning(ctx, storm.ID)
	if err != nil {
		t.Fatal(err)
	}
	two := 2
	set := cur.Settings
	set.NotifyPerHour = &two
	if l, err := a.client.SetLearning(ctx, storm.ID, set); err != nil || l.Settings.NotifyPerHour == nil || *l.Settings.NotifyPerHour != 2 {
		t.Fatalf("notify_per_hour 2: %+v, %v", l.Settings, err)
	}
	if _, err := a.client.AddRule(ctx, storm.ID, []byte(`{"id":"notify","when":{"name":{"exists":true}},
		"then":{"verdict":"show","actions":[{"action":"webhook.post","params":{"url":"`+hook.URL+`/storm"}}]}}`), -1); err != nil {
		t.Fatal(err)
	}
	allow := "allow"
	if _, err := a.client.SetPolicies(ctx, apitype.PutPolicies{Global: map[string]*string{"webhook.post": &allow}}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		drop(stormDir, fmt.Sprintf("news%d.txt", i))
	}
	cards := cardsOf(t, a, storm.ID, 4)
	var done, blocked []apitype.Suggestion
	var why []string
	waitOn(t, on(a.changed()), "each card's post done or blocked", func() bool {
		done, blocked, why = nil, nil, nil
		for _, c := range cards {
			ps := posts(c.ID)
			if len(ps) != 1 || !settled(ps[0]) {
				return false
			}
			if ps[0].State == "done" {
				done = append(done, c)
			} else {
				blocked = append(blocked, c)
				why = append(why, ps[0].Error)
			}
		}
		return true
	}, func() string {
		var s []string
		for _, c := range cards {
			s = append(s, fmt.Sprintf("%s: %+v", c.ID, posts(c.ID)))
		}
		return strings.Join(s, "\n")
	})
	if len(done) != 2 || len(blocked) != 2 || rcv.count("/storm") != 2 {
		t.Fatalf("under a cap of 2 posts an hour: %d done, %d blocked (%q), %d received", len(done), len(blocked), why, rcv.count("/storm"))
	}
	for i, c := range blocked {
		if why[i] != "blocked: 2 posts in the last hour, the scout's cap (notify_per_hour 2)" {
			t.Errorf("%s's post: %q, want the storm reason", c.ID, why[i])
		}
		if !blockedOnTrail(c, "storm") {
			t.Errorf("%s: no action.blocked with gate storm on the trail", c.ID)
		}
	}
	var alarms []apitype.Alarm
	waitOn(t, on(a.changed()), "the storm alarm", func() bool {
		alarms = openAlarms(storm.ID)
		return len(alarms) > 0
	})
	if len(alarms) != 1 || alarms[0].Kind != "action_storm" || !strings.Contains(alarms[0].Message, "notify_per_hour 2") {
		t.Fatalf("the storm scout's open alarms: %+v, want one action_storm", alarms)
	}

	// Anti-flap: the default cooldown of five minutes.
	flap, flapDir := folder("Flap")
	drop(flapDir, "twice.txt")
	card := cardsOf(t, a, flap.ID, 1)[0]
	plan := []apitype.ApproveAction{{Action: "webhook.post", Params: json.RawMessage(`{"url":"` + hook.URL + `/flap"}`), Enabled: true}}
	if _, err := a.client.Approve(ctx, card.ID, apitype.Approve{As: "note", Actions: plan}); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(a.changed()), "the first post", func() bool {
		ps := posts(card.ID)
		return len(ps) == 1 && ps[0].State == "done"
	}, func() string { return fmt.Sprintf("%+v", posts(card.ID)) })
	if _, err := a.client.Undo(ctx, card.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.client.Approve(ctx, card.ID, apitype.Approve{As: "note", Actions: plan}); err != nil {
		t.Fatal(err)
	}
	var second apitype.PlanAction
	waitOn(t, on(a.changed()), "the second post settled", func() bool {
		ps := posts(card.ID)
		if len(ps) != 2 || !settled(ps[1]) {
			return false
		}
		second = ps[1]
		return true
	}, func() string { return fmt.Sprintf("%+v", posts(card.ID)) })
	if second.State != "failed" || !strings.HasPrefix(second.Error, "blocked: same ") || !strings.Contains(second.Error, "the scout's cooldown is 5m0s") {
		t.Fatalf("the same post again within the cooldown: %s %q, want blocked", second.State, second.Error)
	}
	if rcv.count("/flap") != 1 {
		t.Fatalf("the receiver got %d posts of the card, want 1", rcv.count("/flap"))
	}
	if !blockedOnTrail(card, "flap") {
		t.Errorf("no action.blocked with gate flap on the card's trail")
	}
	waitOn(t, on(a.changed()), "the flap alarm", func() bool {
		alarms = openAlarms(flap.ID)
		return len(alarms) > 0
	})
	if len(alarms) != 1 || alarms[0].Kind != "action_flap" {
		t.Fatalf("the flap scout's open alarms: %+v, want one action_flap", alarms)
	}
}
