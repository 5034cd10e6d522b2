package relaydb_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
)

// A Gmail scout starts where its desktop says (the mailbox's history id
// and the creation time, both from before the registration reached the
// relay) until the relay has synced it; after that, the relay's own place
// wins.
func TestGmailScoutStartsWhereTheDesktopSays(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		created := time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
		upsert := func(baseline uint64, at time.Time) {
			t.Helper()
			_, _, err := db.ApplyOnce(ctx, f.user.ID, scouts.NewID("op"), func(tx *sql.Tx) ([]byte, error) {
				return []byte(`{}`), db.UpsertScout(ctx, tx, relay.CloudScout{ID: "sc_mail", UserID: f.user.ID, Kind: relay.KindGmail,
					Name: "Mail", Mode: relay.ModeRelayTriage, Enabled: true,
					Gmail: &relay.GmailScout{Email: "ann@example.com", TokenSealed: []byte("sealed"), Baseline: baseline, CreatedAt: at}})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		upsert(1234, created)
		sc, err := db.GmailScout(ctx, "sc_mail")
		if err != nil {
			t.Fatal(err)
		}
		if sc.Gmail.Cursor != 1234 || !sc.CreatedAt.Equal(created) {
			t.Fatalf("cursor %d created %s, want the desktop's 1234 and %s", sc.Gmail.Cursor, sc.CreatedAt, created)
		}
		// Once synced, a later configuration's baseline changes nothing.
		if err := db.AdvanceCursor(ctx, "sc_mail", 2000); err != nil {
			t.Fatal(err)
		}
		upsert(1500, created.Add(-time.Hour))
		sc, _ = db.GmailScout(ctx, "sc_mail")
		if sc.Gmail.Cursor != 2000 || !sc.CreatedAt.Equal(created) {
			t.Fatalf("after a sync: cursor %d created %s", sc.Gmail.Cursor, sc.CreatedAt)
		}
	})
}
