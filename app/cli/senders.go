package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runSenders is `scouts senders SCOUT_ID`: the scout's senders and lists,
// the most cards first, then the lowest approve rate.
func runSenders(ctx context.Context, args []string, env Env) error {
	f := newFlags("senders", env, true)
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	list, err := c.Senders(ctx, id)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	if len(list.Senders) == 0 {
		fmt.Fprintln(env.Stdout, "No senders yet: the scout has no card from a sender or a list.")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SENDER\tCARDS\tAPPROVED\tLAST APPROVAL\tUNSUBSCRIBE\tSTATE")
	for _, s := range list.Senders {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", s.Key, s.Cards, rateWords(s), lastApproval(s), orDash(s.Unsubscribe), senderState(s))
	}
	tw.Flush()
	fmt.Fprintf(env.Stdout, "Unsubscribe and screen: %s unsubscribe %s SENDER… (e.g. %s)\n", env.program(), id, list.Senders[0].Key)
	return nil
}

// runUnsubscribe is `scouts unsubscribe SCOUT_ID SENDER…`: unsubscribe
// from each sender's list (gmail.unsubscribe, through the outbox) and
// screen it from then on.
func runUnsubscribe(ctx context.Context, args []string, env Env) error {
	f := newFlags("unsubscribe", env, true).changesScout()
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageErrorf("want a scout ID and at least one sender (sender:ADDRESS or list:LIST-ID, as `%s senders SCOUT_ID` lists them)", env.program())
	}
	res, err := c.Unsubscribe(ctx, pos[0], pos[1:])
	if err != nil {
		return managedHint(err)
	}
	if f.json {
		return printJSON(env.Stdout, res)
	}
	for _, o := range res.Outcomes {
		var what []string
		switch u := o.Sender.Unsubscribed; {
		case o.Queued:
			what = append(what, fmt.Sprintf("unsubscribing (%s, action %d on card %s)", o.Sender.Unsubscribe, u.N, u.SuggestionID))
		case u != nil:
			what = append(what, "unsubscribed before ("+u.State+")")
		}
		if o.Note != "" {
			what = append(what, o.Note)
		}
		if o.AlreadyScreened {
			what = append(what, "already screened")
		} else if o.Rule != nil {
			what = append(what, fmt.Sprintf("screened from now on (rule %s; %d waiting card(s) rejected)", ruleIDOf(*o.Rule), len(o.Settled)))
		}
		fmt.Fprintf(env.Stdout, "%s: %s\n", o.Sender.Key, strings.Join(what, "; "))
	}
	return nil
}

func rateWords(s apitype.Sender) string {
	if s.ApproveRate == nil {
		return "—"
	}
	return fmt.Sprintf("%d of %d (%.0f%%)", s.Approved, s.Approved+s.Rejected, *s.ApproveRate*100)
}

func lastApproval(s apitype.Sender) string {
	if s.LastApproval == nil {
		return "never"
	}
	return s.LastApproval.Local().Format("2 Jan 2006")
}

func senderState(s apitype.Sender) string {
	var out []string
	if u := s.Unsubscribed; u != nil {
		w := "unsubscribe " + u.State
		if u.Link != "" {
			w += ": open " + u.Link
		}
		out = append(out, w)
	}
	if s.Screened != nil {
		out = append(out, s.Screened.Why)
	}
	return orDash(strings.Join(out, "; "))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
