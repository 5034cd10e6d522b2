package gmailfake

import "testing"

// A fault can name one message: the others' calls go through, and calls
// are counted per message.
func TestMessageFaults(t *testing.T) {
	e := newEnv(t)
	a := e.deliver(t, simpleMail("a"))
	b := e.deliver(t, simpleMail("b"))
	e.srv.FailMessage(ann, "messages.get", b, 400, 1)
	if _, err := e.svc.Users.Messages.Get("me", a).Do(); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Users.Messages.Get("me", b).Do()
	apiErr(t, err, 400, "invalidArgument")
	if _, err := e.svc.Users.Messages.Get("me", b).Do(); err != nil {
		t.Fatalf("second call after a one-time fault: %v", err)
	}
	if ca, cb := e.srv.MessageCalls(ann, "messages.get", a), e.srv.MessageCalls(ann, "messages.get", b); ca != 1 || cb != 2 {
		t.Fatalf("calls per message: %d and %d, want 1 and 2", ca, cb)
	}
	if c := e.srv.Calls(ann); c["messages.get"] != 3 || len(c) != 1 {
		t.Fatalf("calls by method %v: want 3 messages.get only", c)
	}
}
