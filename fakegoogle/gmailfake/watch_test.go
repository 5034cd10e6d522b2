package gmailfake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/gmail/v1"
)

type notice struct {
	EmailAddress string `json:"emailAddress"`
	HistoryID    uint64 `json:"historyId"` // a JSON number, unlike the API's strings
}

// next returns the next published notification; publishing is synchronous,
// so one is either already there or was never sent.
func (e *env) next(t *testing.T) (string, notice) {
	t.Helper()
	select {
	case p := <-e.pubs:
		var n notice
		if err := json.Unmarshal(p.data, &n); err != nil {
			t.Fatalf("notification %s: %v", p.data, err)
		}
		return p.topic, n
	default:
		t.Fatal("no notification was published")
		return "", notice{}
	}
}

func (e *env) none(t *testing.T) {
	t.Helper()
	if len(e.pubs) != 0 {
		t.Fatalf("%d unexpected notifications", len(e.pubs))
	}
}

func TestWatchNotifications(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, simpleMail("before the watch"))
	e.none(t)

	const topic = "projects/scouts-dev/topics/gmail"
	w, err := e.svc.Users.Watch("me", &gmail.WatchRequest{TopicName: topic, LabelIds: []string{"INBOX"}, LabelFilterBehavior: "include"}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if want := e.clock.Now().Add(7 * 24 * time.Hour).UnixMilli(); w.Expiration != want || w.HistoryId != e.srv.HistoryID(ann) {
		t.Fatalf("watch %+v, want expiration %d", w, want)
	}

	id, h, _ := e.srv.Deliver(ann, []byte(simpleMail("one")))
	if tp, n := e.next(t); tp != topic || n.EmailAddress != ann || n.HistoryID != h {
		t.Fatalf("notification %s %+v, want history %d", tp, n, h)
	}
	// Outside the watched label: no notification.
	e.deliver(t, simpleMail("spam"), "SPAM")
	e.none(t)
	// Leaving INBOX concerns INBOX.
	if _, err := e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{RemoveLabelIds: []string{"INBOX"}}).Do(); err != nil {
		t.Fatal(err)
	}
	if _, n := e.next(t); n.HistoryID != e.srv.HistoryID(ann) {
		t.Errorf("modify notification %+v", n)
	}

	e.srv.DropNotifications(ann, 1)
	e.deliver(t, simpleMail("lost"))
	e.none(t)
	e.deliver(t, simpleMail("found"))
	e.next(t)

	e.srv.DuplicateNotifications(ann, true)
	e.deliver(t, simpleMail("twice"))
	_, a := e.next(t)
	_, b := e.next(t)
	if a != b {
		t.Errorf("duplicates differ: %+v %+v", a, b)
	}
	e.none(t)
	e.srv.DuplicateNotifications(ann, false)

	// A watch lapses after seven days unless renewed.
	e.clock.Advance(7*24*time.Hour + time.Second)
	e.deliver(t, simpleMail("late"))
	e.none(t)
	if _, err := e.svc.Users.Watch("me", &gmail.WatchRequest{TopicName: topic}).Do(); err != nil {
		t.Fatal(err)
	}
	e.deliver(t, simpleMail("renewed"))
	e.next(t)

	if err := e.svc.Users.Stop("me").Do(); err != nil {
		t.Fatal(err)
	}
	e.deliver(t, simpleMail("stopped"))
	e.none(t)

	_, err = e.svc.Users.Watch("me", &gmail.WatchRequest{TopicName: "gmail"}).Do()
	apiErr(t, err, 400, "invalidArgument")
}

// Concurrent changes publish in history order, never under the lock (the
// Publish callback calls back into the server).
func TestNotificationOrder(t *testing.T) {
	var mu sync.Mutex
	var got []uint64
	var srv *Server
	srv = New(Options{Publish: func(_ context.Context, _ string, data []byte) error {
		var n notice
		if err := json.Unmarshal(data, &n); err != nil {
			return err
		}
		_ = srv.HistoryID(ann) // would deadlock if called under the server's lock
		mu.Lock()
		got = append(got, n.HistoryID)
		mu.Unlock()
		return nil
	}})
	srv.AddMailbox(ann)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := &env{srv: srv, url: ts.URL}
	svc := e.service(t, "fake-token-for:"+ann)
	if _, err := svc.Users.Watch("me", &gmail.WatchRequest{TopicName: "projects/p/topics/t"}).Do(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				if _, _, err := srv.Deliver(ann, []byte(simpleMail(fmt.Sprint(i, "-", j)))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if len(got) != 80 {
		t.Fatalf("%d notifications, want 80", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("notification %d (%d) after %d", i, got[i], got[i-1])
		}
	}
}

func TestEmulatorPublisher(t *testing.T) {
	type req struct {
		path string
		body []byte
	}
	reqs := make(chan req, 1)
	emu := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reqs <- req{r.URL.Path, b}
		if strings.Contains(r.URL.Path, "missing") {
			http.Error(w, `{"error":{"code":404,"message":"Topic not found"}}`, http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, `{"messageIds":["1"]}`)
	}))
	defer emu.Close()
	pub := EmulatorPublisher(strings.TrimPrefix(emu.URL, "http://"), nil)
	data := []byte(`{"emailAddress":"ann@example.com","historyId":42}`)
	if err := pub(context.Background(), "projects/p/topics/t", data); err != nil {
		t.Fatal(err)
	}
	r := <-reqs
	var body struct {
		Messages []struct{ Data string } `json:"messages"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || len(body.Messages) != 1 {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if dec, _ := base64.StdEncoding.DecodeString(body.Messages[0].Data); r.path != "/v1/projects/p/topics/t:publish" || string(dec) != string(data) {
		t.Errorf("published %s %q", r.path, dec)
	}
	if err := pub(context.Background(), "projects/p/topics/missing", data); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing topic: %v", err)
	}
	<-reqs
}
