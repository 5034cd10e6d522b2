package alarms

import (
	"context"
	"fmt"

	"github.com/scouts-hq/scouts/scouts"
)

// DefaultFailedRuns is how many runs in a row a scout fails before its
// alarm is raised.
const DefaultFailedRuns = 3

// RunsKey is the dedupe key of a scout's failing-runs alarm.
func RunsKey(scoutID string) string { return KindRunsFailing + ":" + scoutID }

// FailingRuns counts the runs that failed in a row at the head of latest
// (newest first); runs that did not run (skipped, still running, stopped)
// neither count nor break the streak. ranOK is true when the newest run
// that ran succeeded.
func FailingRuns(latest []scouts.Run) (failed int, ranOK bool, lastErr string) {
	for _, r := range latest {
		switch r.Outcome {
		case scouts.RunOK:
			return failed, failed == 0, lastErr
		case scouts.RunFailed:
			if failed == 0 {
				lastErr = r.Error
			}
			failed++
		}
	}
	return failed, false, lastErr
}

// CheckRuns raises a scout's failing-runs alarm once its latest runs
// (newest first) failed threshold times in a row, and resolves it after a
// good run.
func (s *Service) CheckRuns(ctx context.Context, scoutID, scoutName string, latest []scouts.Run, threshold int) error {
	if threshold <= 0 {
		threshold = DefaultFailedRuns
	}
	failed, ok, lastErr := FailingRuns(latest)
	switch {
	case ok:
		return s.Resolve(ctx, RunsKey(scoutID), fmt.Sprintf("%s ran again without error", scoutName))
	case failed >= threshold:
		_, err := s.Raise(ctx, Alarm{Key: RunsKey(scoutID), Kind: KindRunsFailing, Severity: Critical, ScoutID: scoutID,
			Message: fmt.Sprintf("%s failed its last %d runs (%s). Open the scout's runs to see why, fix its source or settings, then run it now.",
				scoutName, failed, lastErr)})
		return err
	}
	return nil
}
