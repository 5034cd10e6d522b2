package gmailfake

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/api/gmail/v1"
)

func TestHistoryPagination(t *testing.T) {
	e := newEnv(t)
	start := e.srv.HistoryID(ann)
	var want []string
	for i := range 250 {
		want = append(want, e.deliver(t, simpleMail(fmt.Sprint("m", i))))
	}
	var got []string
	var ids []uint64
	pages := 0
	err := e.svc.Users.History.List("me").StartHistoryId(start).MaxResults(100).Pages(context.Background(),
		func(r *gmail.ListHistoryResponse) error {
			pages++
			if r.HistoryId != e.srv.HistoryID(ann) {
				t.Errorf("page %d: historyId %d, want the mailbox's %d", pages, r.HistoryId, e.srv.HistoryID(ann))
			}
			for _, h := range r.History {
				ids = append(ids, h.Id)
				if len(h.MessagesAdded) != 1 || len(h.Messages) != 1 {
					t.Fatalf("record %+v", h)
				}
				got = append(got, h.MessagesAdded[0].Message.Id)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if pages != 3 || !slices.Equal(got, want) {
		t.Fatalf("%d pages, %d ids; want 3 pages and the 250 ids in delivery order", pages, len(got))
	}
	if !slices.IsSorted(ids) || ids[0] <= start {
		t.Errorf("history ids not increasing from %d: %v…", start, ids[:5])
	}
	gaps := 0
	for i := 1; i < len(ids); i++ {
		if ids[i] > ids[i-1]+1 {
			gaps++
		}
	}
	if gaps == 0 {
		t.Error("history ids are contiguous; Gmail's are not, and clients must not rely on it")
	}

	// From the latest id: nothing new, still the current id.
	r, err := e.svc.Users.History.List("me").StartHistoryId(e.srv.HistoryID(ann)).Do()
	if err != nil || len(r.History) != 0 || r.HistoryId != e.srv.HistoryID(ann) {
		t.Fatalf("from the latest id: %+v, %v", r, err)
	}
}

func TestHistoryTypesAndLabelFilter(t *testing.T) {
	e := newEnv(t)
	start := e.srv.HistoryID(ann)
	a := e.deliver(t, simpleMail("a"))
	b := e.deliver(t, simpleMail("b"))
	if _, err := e.svc.Users.Messages.Modify("me", a, &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED"}, RemoveLabelIds: []string{"UNREAD"}}).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Users.Messages.Trash("me", b).Do(); err != nil {
		t.Fatal(err)
	}
	list := func(call *gmail.UsersHistoryListCall) []*gmail.History {
		t.Helper()
		r, err := call.Do()
		if err != nil {
			t.Fatal(err)
		}
		return r.History
	}
	base := func() *gmail.UsersHistoryListCall { return e.svc.Users.History.List("me").StartHistoryId(start) }

	if all := list(base()); len(all) != 4 {
		t.Fatalf("%d records, want 4", len(all))
	}
	added := list(base().HistoryTypes("messageAdded"))
	if len(added) != 2 || added[0].MessagesAdded[0].Message.Id != a || added[1].LabelsAdded != nil {
		t.Fatalf("messageAdded: %+v", added)
	}
	labelled := list(base().HistoryTypes("labelAdded"))
	if len(labelled) != 2 || labelled[0].MessagesAdded != nil {
		t.Fatalf("labelAdded: %d records", len(labelled))
	}
	if la := labelled[0].LabelsAdded[0]; la.Message.Id != a || !slices.Equal(la.LabelIds, []string{"STARRED"}) ||
		!slices.Equal(la.Message.LabelIds, []string{"INBOX", "STARRED"}) || labelled[0].LabelsRemoved != nil {
		t.Errorf("labelAdded record %+v %+v", la, la.Message)
	}
	if la := labelled[1].LabelsAdded[0]; la.Message.Id != b || !slices.Equal(la.LabelIds, []string{"TRASH"}) {
		t.Errorf("trash record %+v", la)
	}
	removed := list(base().HistoryTypes("labelRemoved", "labelAdded"))
	if len(removed) != 2 || removed[1].LabelsRemoved[0].LabelIds[0] != "INBOX" {
		t.Errorf("labelRemoved: %+v", removed)
	}
	if starred := list(base().LabelId("STARRED")); len(starred) != 1 || starred[0].Messages[0].Id != a {
		t.Errorf("labelId STARRED: %+v", starred)
	}
	_, err := base().HistoryTypes("everything").Do()
	apiErr(t, err, 400, "invalidArgument")
}

func TestHistoryExpiry(t *testing.T) {
	e := newEnv(t)
	h0 := e.srv.HistoryID(ann)
	_, err := e.svc.Users.History.List("me").StartHistoryId(h0 - 1).Do()
	apiErr(t, err, 404, "notFound")

	_, h1, err := e.srv.Deliver(ann, []byte(simpleMail("x")))
	if err != nil {
		t.Fatal(err)
	}
	e.srv.ExpireHistory(ann, h1)
	_, err = e.svc.Users.History.List("me").StartHistoryId(h0).Do()
	apiErr(t, err, 404, "notFound")
	r, err := e.svc.Users.History.List("me").StartHistoryId(h1).Do()
	if err != nil || len(r.History) != 0 {
		t.Fatalf("from the oldest retained id: %+v %v", r, err)
	}
	// startHistoryId is required.
	_, err = e.svc.Users.History.List("me").Do()
	apiErr(t, err, 400, "invalidArgument")
}

func TestModifyTrashUntrash(t *testing.T) {
	e := newEnv(t)
	id := e.deliver(t, simpleMail("m"))
	h := e.srv.HistoryID(ann)

	lab, err := e.svc.Users.Labels.Create("me", &gmail.Label{Name: "Scouts/Reviewed"}).Do()
	if err != nil || lab.Id != "Label_1" || lab.Type != "user" {
		t.Fatalf("label %+v %v", lab, err)
	}
	_, err = e.svc.Users.Labels.Create("me", &gmail.Label{Name: "scouts/reviewed"}).Do()
	apiErr(t, err, 409, "duplicate")
	labels, err := e.svc.Users.Labels.List("me").Do()
	if err != nil || !slices.ContainsFunc(labels.Labels, func(l *gmail.Label) bool { return l.Id == "CATEGORY_PROMOTIONS" }) ||
		labels.Labels[len(labels.Labels)-1].Name != "Scouts/Reviewed" {
		t.Fatalf("labels.list: %v", err)
	}

	m, err := e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{AddLabelIds: []string{lab.Id}, RemoveLabelIds: []string{"INBOX"}}).Do()
	if err != nil || !slices.Equal(m.LabelIds, []string{"UNREAD", lab.Id}) {
		t.Fatalf("modify: %+v %v", m, err)
	}
	if got, _ := e.srv.Message(ann, id); !slices.Equal(got, m.LabelIds) {
		t.Errorf("server labels %v", got)
	}
	if e.srv.HistoryID(ann) <= h {
		t.Error("modify did not advance the history id")
	}
	if g, err := e.svc.Users.Labels.Get("me", lab.Id).Do(); err != nil || g.MessagesTotal != 1 || g.MessagesUnread != 1 {
		t.Errorf("labels.get %+v %v", g, err)
	}

	// A no-op change records nothing.
	h = e.srv.HistoryID(ann)
	if _, err := e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{AddLabelIds: []string{"UNREAD"}}).Do(); err != nil {
		t.Fatal(err)
	}
	if e.srv.HistoryID(ann) != h {
		t.Error("a no-op modify advanced the history id")
	}
	_, err = e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{AddLabelIds: []string{"Label_99"}}).Do()
	apiErr(t, err, 400, "invalidArgument")
	_, err = e.svc.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{}).Do()
	apiErr(t, err, 400, "invalidArgument")

	in := e.deliver(t, simpleMail("n"))
	if m, err := e.svc.Users.Messages.Trash("me", in).Do(); err != nil || !slices.Equal(m.LabelIds, []string{"UNREAD", "TRASH"}) {
		t.Fatalf("trash: %+v %v", m, err)
	}
	if m, err := e.svc.Users.Messages.Untrash("me", in).Do(); err != nil || !slices.Equal(m.LabelIds, []string{"UNREAD", "INBOX"}) {
		t.Fatalf("untrash: %+v %v", m, err)
	}
	if err := e.svc.Users.Messages.BatchModify("me", &gmail.BatchModifyMessagesRequest{Ids: []string{id, in}, AddLabelIds: []string{"STARRED"}}).Do(); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.srv.Message(ann, in); !slices.Contains(got, "STARRED") {
		t.Errorf("batchModify: %v", got)
	}

	// Nothing may delete mail.
	apiErr(t, e.svc.Users.Messages.Delete("me", in).Do(), 403, "insufficientPermissions")
	apiErr(t, e.svc.Users.Messages.BatchDelete("me", &gmail.BatchDeleteMessagesRequest{Ids: []string{in}}).Do(), 403, "insufficientPermissions")
	if _, ok := e.srv.Message(ann, in); !ok {
		t.Fatal("the message is gone")
	}
}
