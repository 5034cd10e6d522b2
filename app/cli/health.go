package cli

import (
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// scoutsHealth sums up the scouts by health: "4 scouts, all ok", "3
// scouts: 2 ok, 1 failing". It counts health, not running watchers: a
// webhook scout has nothing running on this machine (the relay receives
// for it) and is as well as any other, which "3 running of 4" hid.
func scoutsHealth(list []apitype.Scout, paused bool) string {
	if len(list) == 0 {
		return "none"
	}
	order := []string{"ok", "error", "starting", "disabled"}
	words := map[string]string{"ok": "ok", "error": "failing", "starting": "not run yet", "disabled": "disabled"}
	n := map[string]int{}
	for _, s := range list {
		st := s.Health.State
		if _, ok := words[st]; !ok {
			order, words[st] = append(order, st), st
		}
		n[st]++
	}
	out := plural(len(list), "scout")
	switch {
	case n["ok"] == len(list):
		out += ", all ok"
	default:
		var parts []string
		for _, st := range order {
			if n[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[st], words[st]))
			}
		}
		out += ": " + strings.Join(parts, ", ")
	}
	if n["error"] > 0 {
		out += " (see why: scouts scouts)"
	}
	if paused {
		out += "; paused: nothing new is processed"
	}
	return out
}
