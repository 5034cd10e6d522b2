package gmailfake

import (
	"context"
	"net/http"
	"testing"
	"time"

	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/option"
)

func TestAuth(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatal(err)
	}
	e.srv.RevokeAll(ann)
	_, err := e.svc.Users.GetProfile("me").Do()
	ge := apiErr(t, err, 401, "authError")
	if got := ge.Header.Get("WWW-Authenticate"); got != `Bearer realm="https://accounts.google.com/", error="invalid_token"` {
		t.Errorf("WWW-Authenticate %q", got)
	}
	if calls := e.srv.Calls(ann); len(calls) != 1 {
		t.Errorf("refused calls were counted: %v", calls)
	}
	e.srv.Restore(ann)
	if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatal(err)
	}

	_, err = e.service(t, "not-a-token").Users.GetProfile("me").Do()
	apiErr(t, err, 401, "authError")

	noAuth, err := gmail.NewService(context.Background(), option.WithEndpoint(e.url+"/"), option.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	_, err = noAuth.Users.GetProfile("me").Do()
	apiErr(t, err, 401, "required")

	// A valid token for a mailbox the server does not hold.
	_, err = e.service(t, "fake-token-for:nobody@example.com").Users.GetProfile("me").Do()
	apiErr(t, err, 400, "failedPrecondition")

	// A custom authoriser, through option.WithHTTPClient.
	custom := newEnv(t, func(o *Options) {
		o.Authorize = func(tok string) (string, bool) { return ann, tok == "s3cret" }
	})
	svc, err := gmail.NewService(context.Background(), option.WithEndpoint(custom.url+"/"),
		option.WithHTTPClient(&http.Client{Transport: bearer{"s3cret"}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatal(err)
	}
}

func TestInjectedFaults(t *testing.T) {
	e := newEnv(t)
	id := e.deliver(t, simpleMail("m"))
	e.srv.Fail(ann, "messages.get", 429, 2, 3*time.Second)
	for range 2 {
		_, err := e.svc.Users.Messages.Get("me", id).Do()
		ge := apiErr(t, err, 429, "rateLimitExceeded")
		if ge.Header.Get("Retry-After") != "3" {
			t.Errorf("Retry-After %q", ge.Header.Get("Retry-After"))
		}
	}
	if _, err := e.svc.Users.Messages.Get("me", id).Do(); err != nil {
		t.Fatalf("third call: %v", err)
	}
	if c, q := e.srv.Calls(ann)["messages.get"], e.srv.Quota(ann); c != 3 || q != 5 {
		t.Errorf("calls %d quota %d, want 3 calls and 5 units (failed calls are free)", c, q)
	}

	e.srv.Fail(ann, "*", 503, -1, 0)
	for range 3 {
		_, err := e.svc.Users.GetProfile("me").Do()
		apiErr(t, err, 503, "backendError")
	}
	e.srv.Fail(ann, "*", 0, 0, 0)
	if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatal(err)
	}
	e.srv.Fail(ann, "history.list", 500, 1, 0)
	_, err := e.svc.Users.History.List("me").StartHistoryId(e.srv.HistoryID(ann)).Do()
	apiErr(t, err, 500, "backendError")
}

func TestLatency(t *testing.T) {
	e := newEnv(t)
	e.srv.SetLatency(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.svc.Users.GetProfile("me").Context(ctx).Do(); err == nil {
		t.Fatal("a call through an hour of latency returned before its deadline")
	}
	e.srv.SetLatency(0)
	if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatal(err)
	}
}

func TestQuotaAccounting(t *testing.T) {
	e := newEnv(t)
	id := e.deliver(t, simpleMail("m"))
	u := e.svc.Users
	steps := []func() error{
		func() error { _, err := u.GetProfile("me").Do(); return err },
		func() error { _, err := u.Messages.List("me").Do(); return err },
		func() error { _, err := u.Messages.Get("me", id).Do(); return err },
		func() error { _, err := u.History.List("me").StartHistoryId(e.srv.HistoryID(ann)).Do(); return err },
		func() error {
			_, err := u.Messages.Modify("me", id, &gmail.ModifyMessageRequest{RemoveLabelIds: []string{"UNREAD"}}).Do()
			return err
		},
		func() error { _, err := u.Messages.Trash("me", id).Do(); return err },
		func() error {
			_, err := u.Watch("me", &gmail.WatchRequest{TopicName: "projects/p/topics/t"}).Do()
			return err
		},
		func() error { return u.Stop("me").Do() },
		func() error { _, err := u.Labels.List("me").Do(); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if q := e.srv.Quota(ann); q != 1+5+5+2+5+5+100+50+1 {
		t.Errorf("quota %d, want 174", q)
	}
	calls := e.srv.Calls(ann)
	if calls["watch"] != 1 || calls["stop"] != 1 || calls["messages.trash"] != 1 || calls["labels.list"] != 1 {
		t.Errorf("calls %v", calls)
	}
}

func TestQuotaLimit(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.QuotaPerMinute = 10 })
	for range 10 {
		if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.Users.GetProfile("me").Do()
	ge := apiErr(t, err, 429, "rateLimitExceeded")
	if ge.Header.Get("Retry-After") != "60" {
		t.Errorf("Retry-After %q", ge.Header.Get("Retry-After"))
	}
	e.clock.Advance(time.Minute)
	if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatalf("after a minute: %v", err)
	}
}
