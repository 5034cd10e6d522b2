package gmailfake

import (
	"testing"

	"google.golang.org/api/gmail/v1"
)

// A repeated archive is one call more but no second change: the test of
// "archived exactly once in effect" reads both.
func TestModificationsCountCallsAndChangesPerMessage(t *testing.T) {
	e := newEnv(t)
	id := e.deliver(t, simpleMail("m"))
	other := e.deliver(t, simpleMail("o"))
	for range 2 {
		if _, err := e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{RemoveLabelIds: []string{"INBOX"}}).Do(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED"}}).Do(); err != nil {
		t.Fatal(err)
	}
	calls, added, removed := e.srv.Modifications(ann, id)
	if calls != 3 || removed["INBOX"] != 1 || added["STARRED"] != 1 || len(removed) != 1 || len(added) != 1 {
		t.Fatalf("calls %d, added %v, removed %v", calls, added, removed)
	}
	if calls, added, removed := e.srv.Modifications(ann, other); calls != 0 || len(added)+len(removed) != 0 {
		t.Fatalf("untouched message: %d %v %v", calls, added, removed)
	}
}
