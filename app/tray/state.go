// Package tray is the agent's presence on the desktop: the tray icon with
// its menu (fyne.io/systray: a DBus StatusNotifierItem on Linux, the
// notification area on Windows) and desktop notifications for new
// suggestions (org.freedesktop.Notifications over DBus).
//
// It runs inside the agent process but is a thin client of the local API,
// as the window and the CLI are: it reads the agent's state and event
// stream and acts through the same endpoints (pause, resume, sync), over
// the agent's socket. Nothing here touches the core directly.
package tray

import (
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/icons"
)

// Menu labels (the tests look for them over dbusmenu).
const (
	LabelOpen   = "Open Scouts"
	LabelGmail  = "Connect Gmail…"
	LabelPause  = "Pause all scouts"
	LabelResume = "Resume all scouts"
	LabelSync   = "Sync now"
	LabelQuit   = "Quit"
)

// Summary is what the tray shows for a state of the agent.
type Summary struct {
	State icons.State
	// Title is "Scouts — N pending"; the tooltip is Title and Detail.
	Title  string
	Detail string
	Paused bool
}

// Tooltip is the text shown when pointing at the icon.
func (s Summary) Tooltip() string {
	if s.Detail == "" {
		return s.Title
	}
	return s.Title + "\n" + s.Detail
}

// Summarize decides the icon and texts: attention when an alarm is open,
// a scout fails or the relay refused this device (the user must act), offline when a relay
// is configured and not connected (work goes on locally), else ok.
func Summarize(st apitype.Status, scouts []apitype.Scout) Summary {
	s := Summary{State: icons.OK, Paused: st.Paused, Title: fmt.Sprintf("Scouts — %d pending", st.Pending)}
	var failing []string
	for _, sc := range scouts {
		if sc.Enabled && sc.Health.State == "error" {
			failing = append(failing, sc.Name)
		}
	}
	var details []string
	// Open alarms first: each says what to do, in the window's Status
	// (or scouts alarms); acknowledged ones are no longer counted.
	if st.Alarms > 0 {
		s.State = icons.Attention
		details = append(details, plural(st.Alarms, "alarm", "alarms")+": see Status → Alarms")
	}
	if r := st.Relay; r != nil {
		switch r.State {
		case "online":
		case "unauthorized", "revoked":
			s.State = icons.Attention
			details = append(details, "Relay refused this device ("+r.State+"): replace its token")
		default:
			s.State = icons.Offline
			details = append(details, "Offline: decisions wait in the outbox")
		}
	}
	if len(failing) > 0 {
		s.State = icons.Attention
		details = append(details, plural(len(failing), "scout fails", "scouts fail")+": "+strings.Join(failing, ", "))
	}
	if st.Paused {
		details = append(details, "All scouts paused")
	}
	if len(details) == 0 {
		details = append(details, "All good")
	}
	// Cards below the inbox are no alarm, only worth knowing of.
	if sc, sp := st.Lanes["screened"], st.Lanes["spam"]; sc+sp > 0 {
		details = append(details, fmt.Sprintf("Also %d screened and %d in spam", sc, sp))
	}
	s.Detail = strings.Join(details, "\n")
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
