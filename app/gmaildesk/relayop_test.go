package gmaildesk

import (
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

// A relay-triage scout's model budget is the relay's to enforce: the caps
// the user set must travel with the scout's configuration, or the relay
// spends the whole agent allowance on one scout.
func TestRelayOpCarriesTheScoutsBudget(t *testing.T) {
	s := scouts.Scout{ID: "sc_1", Kind: scouts.KindGmail, Name: "Mail", Enabled: true,
		Budget: scouts.Budget{RunTokens: 5_000, DayTokens: 50_000}}
	op := relayOp(s, Config{Email: "ann@example.com", Mode: RelayTriage}, nil)
	if op.ModelRunTokens != 5_000 || op.ModelDayTokens != 50_000 {
		t.Fatalf("relay op caps run %d / day %d, want 5000 / 50000", op.ModelRunTokens, op.ModelDayTokens)
	}
}
