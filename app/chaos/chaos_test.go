//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scenarioTimeout bounds one scenario, setup included: a stuck scenario
// is reported as such, never waited on forever.
const scenarioTimeout = 6 * time.Minute

// result is one row of the summary table.
type result struct {
	name       string
	accepted   int // items the system took responsibility for (2xx, delivered mail, approved cards)
	suggested  int // what the desktop ended with, each counted once
	lost       int
	duplicated int
	kills      int // SIGKILLs and restarts
	seconds    float64
	notes      []string
	failed     bool
}

func (r *result) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// scenario is what a scenario gets: the binaries, its own random source
// (seeded from the run's seed, so CHAOS_SEED replays the kill points),
// a deadline and the row it fills in.
type scenario struct {
	t     *testing.T
	bins  bins
	rng   *rand.Rand
	ctx   context.Context
	res   *result
	began time.Time
}

// logf logs a step with the time since the scenario began.
func (s *scenario) logf(format string, args ...any) {
	s.t.Helper()
	s.t.Logf("%6.1fs %s", time.Since(s.began).Seconds(), fmt.Sprintf(format, args...))
}

// between picks an integer in [lo, hi).
func (s *scenario) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + s.rng.IntN(hi-lo)
}

// points picks k distinct thresholds in [lo, hi), ascending: the counts
// of accepted items at which something is broken.
func (s *scenario) points(k, lo, hi int) []int {
	var out []int
	for len(out) < k && len(out) < hi-lo {
		p := s.between(lo, hi)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func seed(t *testing.T) uint64 {
	if v := os.Getenv("CHAOS_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CHAOS_SEED=%q: want a number", v)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

func TestChaos(t *testing.T) {
	sd := seed(t)
	fmt.Printf("chaos: seed %d (CHAOS_SEED=%d replays this run's kill points)\n", sd, sd)
	b := buildBins(t)
	scenarios := []struct {
		name string
		run  func(*testing.T, *scenario)
	}{
		{"webhook-ingest-relay-kill", relayKillDuringIngest},
		{"webhook-drain-relay-kill", relayKillDuringDrain},
		{"webhook-drain-agent-kill", agentKillDuringDrain},
		{"postgres-restart", postgresRestart},
		{"gmail-push-chaos", gmailPushChaos},
		{"gmail-approve-archive-kill", approveArchiveKill},
	}
	var results []*result
	for i, sc := range scenarios {
		r := &result{name: sc.name}
		began := time.Now()
		ran := t.Run(sc.name, func(t *testing.T) {
			results = append(results, r)
			ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
			defer cancel()
			sc.run(t, &scenario{t: t, bins: b, rng: rand.New(rand.NewPCG(sd, uint64(i))), ctx: ctx, res: r, began: began})
			if r.lost > 0 || r.duplicated > 0 {
				t.Errorf("%d lost, %d duplicated; want 0 and 0", r.lost, r.duplicated)
			}
		})
		r.seconds = time.Since(began).Seconds()
		r.failed = !ran
	}
	table := summary(results)
	fmt.Print(table)
	if path := os.Getenv("CHAOS_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Errorf("writing CHAOS_REPORT: %v", err)
		}
	}
}

// summary is the Markdown table printed at the end, with each scenario's
// notes below it.
func summary(rs []*result) string {
	var b strings.Builder
	b.WriteString("\n| scenario | accepted | suggested | lost | duplicated | kills/restarts | seconds |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		name := r.name
		if r.failed {
			name += " (FAILED)"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %.0f |\n", name, r.accepted, r.suggested, r.lost, r.duplicated, r.kills, r.seconds)
	}
	b.WriteString("\n")
	for _, r := range rs {
		for _, n := range r.notes {
			fmt.Fprintf(&b, "- %s: %s\n", r.name, n)
		}
	}
	return b.String()
}
