package scouts_test

import (
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

func TestBudgetValidate(t *testing.T) {
	const hard = 200_000
	for _, tc := range []struct {
		b    scouts.Budget
		want string
	}{
		{scouts.Budget{}, ""},
		{scouts.Budget{RunTokens: 5000, DayTokens: 50_000}, ""},
		{scouts.Budget{DayTokens: hard}, ""},
		{scouts.Budget{DayTokens: hard + 1}, "above the global hard cap of 200000"},
		{scouts.Budget{RunTokens: hard + 1}, "above the global hard cap"},
		{scouts.Budget{RunTokens: -1}, "cannot be negative"},
		{scouts.Budget{RunTokens: 6000, DayTokens: 5000}, "one run could never spend it"},
	} {
		err := tc.b.Validate(hard)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.b, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one saying %q", tc.b, err, tc.want)
		}
	}
	if got := (scouts.Budget{DayTokens: 1000}).DayCap(hard); got != 1000 {
		t.Errorf("DayCap = %d, want the scout's 1000", got)
	}
	if got := (scouts.Budget{}).DayCap(hard); got != hard {
		t.Errorf("DayCap = %d, want the global %d", got, hard)
	}
	// A hard cap lowered after a scout's budget was saved still bounds it.
	if got := (scouts.Budget{DayTokens: 500_000}).DayCap(hard); got != hard {
		t.Errorf("DayCap = %d, want the global %d", got, hard)
	}
}
