package scouts_test

import (
	"math"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

// NaN is between nothing and nothing: it failed no range check, so a
// scout could be given thresholds that no JSON (its version, the API's
// answer) can hold.
func TestLearnSettingsRefuseNaN(t *testing.T) {
	def := scouts.DefaultLearnSettings()
	for _, tc := range []struct {
		set  func(*scouts.LearnSettings)
		want string
	}{
		{func(s *scouts.LearnSettings) { s.ScreenBelow = math.NaN() }, "screen_below"},
		{func(s *scouts.LearnSettings) { s.SpamAbove = math.NaN() }, "spam_above"},
		{func(s *scouts.LearnSettings) { s.SpamAbove = math.Inf(1) }, "spam_above"},
	} {
		s := def
		tc.set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", s, err)
		}
	}
}
