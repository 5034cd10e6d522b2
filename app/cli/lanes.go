package cli

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// Lanes (inbox, screened, spam) and each scout's learner.

// laneReason says why a card waits where it does.
func laneReason(s apitype.Suggestion) string {
	if s.Assessment != nil && s.Assessment.LaneReason != "" {
		return s.Assessment.LaneReason
	}
	if s.Lane == "" {
		return "inbox"
	}
	return s.Lane
}

// laneAction is a command that takes cards, one ID after another, into a
// lane or out of the pending ones: spam, bring-back, screen, reject, undo.
type laneAction struct {
	name string
	do   func(*localclient.Client, context.Context, string) (apitype.Suggestion, error)
	done func(apitype.Suggestion) string
	// want is the usage error when no ID is given; empty is the common one.
	want string
}

var (
	spamAction = laneAction{name: "spam", do: (*localclient.Client).MarkSpam,
		done: func(s apitype.Suggestion) string { return fmt.Sprintf("Marked as spam: %s %q", s.ID, s.Title) }}
	bringBackAction = laneAction{name: "bring-back", do: (*localclient.Client).BringBack,
		done: func(s apitype.Suggestion) string { return fmt.Sprintf("Back in the inbox: %s %q", s.ID, s.Title) }}
	screenAction = laneAction{name: "screen", do: (*localclient.Client).Screen,
		done: func(s apitype.Suggestion) string { return fmt.Sprintf("Screened: %s %q", s.ID, s.Title) }}
	rejectAction = laneAction{name: "reject", do: (*localclient.Client).Reject,
		done: func(s apitype.Suggestion) string { return fmt.Sprintf("Rejected %s %q", s.ID, s.Title) }}
)

func runLaneAction(ctx context.Context, a laneAction, args []string, env Env) error {
	f := newFlags(a.name, env, true)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		if a.want != "" {
			return usageErrorf("%s", a.want)
		}
		return usageErrorf("want one or more suggestion IDs")
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	for _, id := range pos {
		s, err := a.do(c, ctx, id)
		if err != nil {
			return withID(pos, id, err)
		}
		if f.json {
			if err := printJSON(env.Stdout, s); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(env.Stdout, a.done(s))
	}
	return nil
}

// probability reads 0.1 or 10%.
type probability struct{ v *float64 }

func (p probability) String() string {
	if p.v == nil {
		return ""
	}
	return strconv.FormatFloat(*p.v, 'g', -1, 64)
}

func (p probability) Set(s string) error {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	// NaN and infinities parse, and 1e999 parses to one; none is a
	// probability, and none could reach the agent (JSON has no such number).
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s is not a finite number: want a probability such as 0.1 or 10%%", s)
	}
	if err != nil {
		return fmt.Errorf("want a probability such as 0.1 or 10%%")
	}
	if pct {
		v /= 100
	}
	*p.v = v
	return nil
}

func runLearning(ctx context.Context, args []string, env Env) error {
	f := newFlags("learning", env, true).changesScout()
	reset := f.Bool("reset", false, "forget everything this scout's learner learned")
	var set apitype.LearnSettings
	f.IntVar(&set.ColdStart, "cold-start", 0, "decisions before the learner screens or files spam on its own")
	f.Var(probability{&set.ScreenBelow}, "screen-below", "screen items the person approves with less than this probability (0–0.5, e.g. 0.1 or 10%)")
	f.Var(probability{&set.SpamAbove}, "spam-above", "file as spam above this spam probability (0.5–1)")
	f.IntVar(&set.MinSpam, "min-spam", 0, "spam and non-spam decisions each needed before learned spam filing")
	silence := f.Int("silence-days", 0, "days a card left alone in Spam or Screened waits before its silence teaches (0 turns it off)")
	pendingCap := f.Int("pending-cap", 0, "pending cards the scout may have waiting before new ones are held (1–100000; 0: the default, 500)")
	cooldown := f.Duration("cooldown", 0, "the anti-flap gate: the same action on the same item within this is blocked (e.g. 5m; 0: the default, 5m)")
	perHour := f.Int("notify-per-hour", 0, "the storm gate: outbound posts past this many in the last hour are blocked (0: the default, 30)")
	quiet := f.String("quiet", "", "quiet hours, HH:MM-HH:MM local time (22:00-07:00), when allowed write actions wait for approval; off: none")
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	changed := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { changed[fl.Name] = true })
	thresholds := changed["cold-start"] || changed["screen-below"] || changed["spam-above"] || changed["min-spam"] || changed["silence-days"] ||
		changed["pending-cap"] || changed["cooldown"] || changed["notify-per-hour"] || changed["quiet"]
	if *reset && thresholds {
		return usageErrorf("--reset cannot be combined with thresholds")
	}
	var l apitype.Learning
	switch {
	case *reset:
		l, err = c.ResetLearning(ctx, id)
	case thresholds:
		// The API replaces the settings whole: start from the current ones.
		cur, err := c.Learning(ctx, id)
		if err != nil {
			return err
		}
		next := cur.Settings
		if changed["cold-start"] {
			next.ColdStart = set.ColdStart
		}
		if changed["screen-below"] {
			next.ScreenBelow = set.ScreenBelow
		}
		if changed["spam-above"] {
			next.SpamAbove = set.SpamAbove
		}
		if changed["min-spam"] {
			next.MinSpam = set.MinSpam
		}
		if changed["silence-days"] {
			next.SilenceDays = silence
		}
		if changed["pending-cap"] {
			next.PendingCap = pendingCap
		}
		if changed["cooldown"] {
			// Whole seconds, as the agent keeps it: 90s stays 90s, 1.5s
			// would be refused below rather than rounded to what was not asked.
			if *cooldown < 0 || *cooldown%time.Second != 0 {
				return usageErrorf("--cooldown %s: want whole seconds, such as 90s or 5m (0: the default)", *cooldown)
			}
			secs := int(cooldown.Seconds())
			next.CooldownSeconds = &secs
		}
		if changed["notify-per-hour"] {
			next.NotifyPerHour = perHour
		}
		if changed["quiet"] {
			start, end, err := quietHours(*quiet)
			if err != nil {
				return err
			}
			next.QuietStart, next.QuietEnd = &start, &end
		}
		l, err = c.SetLearning(ctx, id, next)
		if err != nil {
			return err
		}
	default:
		l, err = c.Learning(ctx, id)
	}
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, l)
	}
	w := table(env.Stdout)
	fmt.Fprintf(w, "Scout\t%s\n", l.ScoutID)
	fmt.Fprintf(w, "State\t%s\n", l.State)
	fmt.Fprintf(w, "Decisions\t%d (%d spam, %d not spam)\n", l.Decisions, l.Spam, l.Ham)
	fmt.Fprintf(w, "Features\t%d\n", l.Features)
	if l.ResetAt != nil {
		fmt.Fprintf(w, "Reset\t%s ago\n", ago(*l.ResetAt))
	}
	st := l.Settings
	fmt.Fprintf(w, "Cold start\t%s before screening or filing spam\n", plural(st.ColdStart, "decision"))
	fmt.Fprintf(w, "Screen below\t%s approve probability\n", pct(st.ScreenBelow))
	fmt.Fprintf(w, "Spam above\t%s spam probability (after %d spam and %d not-spam decisions)\n", pct(st.SpamAbove), st.MinSpam, st.MinSpam)
	if st.SilenceDays != nil {
		if *st.SilenceDays == 0 {
			fmt.Fprintf(w, "Silence\toff: cards left alone teach nothing\n")
		} else {
			fmt.Fprintf(w, "Silence\ta card left alone in Spam or Screened for %s teaches as confirmed\n", plural(*st.SilenceDays, "day"))
		}
	}
	if st.PendingCap != nil {
		fmt.Fprintf(w, "Pending cap\t%s waiting at most; more are held and let in as cards are decided\n", plural(*st.PendingCap, "card"))
	}
	if st.CooldownSeconds != nil {
		fmt.Fprintf(w, "Cooldown\t%s: the same action on the same item again within it is blocked\n", time.Duration(*st.CooldownSeconds)*time.Second)
	}
	if st.NotifyPerHour != nil {
		fmt.Fprintf(w, "Posts\t%s an hour at most; more are blocked\n", plural(*st.NotifyPerHour, "post"))
	}
	if st.QuietStart != nil && st.QuietEnd != nil {
		if *st.QuietStart == "" {
			fmt.Fprintf(w, "Quiet hours\tnone\n")
		} else {
			fmt.Fprintf(w, "Quiet hours\t%s–%s: allowed write actions wait for approval\n", *st.QuietStart, *st.QuietEnd)
		}
	}
	return w.Flush()
}

// quietHours reads --quiet: "22:00-07:00", or "off" (or "") for none.
// The agent checks the times themselves.
func quietHours(s string) (start, end string, err error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "off" || s == "none" {
		return "", "", nil
	}
	start, end, ok := strings.Cut(s, "-")
	if !ok {
		return "", "", usageErrorf("--quiet %s: want HH:MM-HH:MM, such as 22:00-07:00, or off", s)
	}
	return strings.TrimSpace(start), strings.TrimSpace(end), nil
}

func pct(p float64) string { return strconv.FormatFloat(p*100, 'g', 4, 64) + " %" }
