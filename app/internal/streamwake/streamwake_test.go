package streamwake_test

import (
	"context"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/internal/apitest"
	"github.com/scouts-hq/scouts/app/internal/streamwake"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/scouts"
)

// A change the agent makes wakes the follower once it can be read through
// the API; following ends when the agent's API goes away.
func TestFollowFiresOnEachEventAndEndsWithTheAgent(t *testing.T) {
	ctx := context.Background()
	a := apitest.Start(t)
	var w wake.Wake
	done, err := streamwake.Follow(ctx, a.Client, &w, t.Errorf)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	next := w.Next()
	if _, err := a.Core.CreateEntity(ctx, scouts.Entity{Kind: scouts.EntityTask, Title: "Pay the invoice"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-next:
	case <-wctx.Done():
		t.Fatal("the new task was not announced on the stream")
	}
	if list, err := a.Client.Entities(ctx, "task"); err != nil || len(list) != 1 || list[0].Title != "Pay the invoice" {
		t.Fatalf("woken before the change could be read: %+v %v", list, err)
	}

	a.Stop()
	select {
	case <-done:
	case <-wctx.Done():
		t.Fatal("following went on after the agent's API went away")
	}
}
