package gmailfake

import (
	"testing"
)

// Next closes after an API call is answered (its change visible) and
// after a delivery, so that a test waits on the fake's state without
// polling it.
func TestNextClosesAfterACallAndADelivery(t *testing.T) {
	e := newEnv(t)
	next := e.srv.Next()
	select {
	case <-next:
		t.Fatal("Next closed with nothing done")
	default:
	}
	if _, err := e.svc.Users.GetProfile("me").Do(); err != nil {
		t.Fatal(err)
	}
	<-next
	if n := e.srv.Calls(ann)["profile"]; n != 1 {
		t.Fatalf("woken with %d profile calls counted, want 1", n)
	}
	next = e.srv.Next()
	if _, _, err := e.srv.Deliver(ann, []byte("Subject: hi\r\n\r\nhello\r\n")); err != nil {
		t.Fatal(err)
	}
	<-next
}
