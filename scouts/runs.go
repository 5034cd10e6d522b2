package scouts

import "time"

// RunTrigger is what started a run (or would have: a skipped run).
type RunTrigger string

const (
	// TriggerStart: the scout's runner started (the agent started, the
	// scout was enabled or its definition changed) and caught up on what
	// arrived meanwhile.
	TriggerStart RunTrigger = "start"
	// TriggerSchedule: the scout's cron schedule.
	TriggerSchedule RunTrigger = "schedule"
	// TriggerCatchUp: a scheduled run missed while the agent was off.
	TriggerCatchUp RunTrigger = "catch-up"
	// TriggerManual: a person asked ("Run now", "Sync now").
	TriggerManual RunTrigger = "manual"
	// TriggerResume: the scouts were resumed after a pause.
	TriggerResume RunTrigger = "resume"
	// TriggerSource: the source said something changed (a file changed in
	// the folder, the relay relayed a Gmail push).
	TriggerSource RunTrigger = "source"
	// TriggerPoll: the poll of a source that cannot be watched, every
	// --poll-interval (scouts without a schedule only).
	TriggerPoll RunTrigger = "poll"
)

// RunOutcome is how a run ended.
type RunOutcome string

const (
	RunOK     RunOutcome = "ok"
	RunFailed RunOutcome = "failed"
	// RunSkipped: the run did not happen (the overlap policy is skip and a
	// run was in progress, or a missed scheduled run was not caught up);
	// Run.Note says why.
	RunSkipped RunOutcome = "skipped"
	// RunStopped: the run was cut short because the scout stopped (the
	// agent quit, the scout was disabled or its definition changed); its
	// cursor did not move, so the next run reads the same items again.
	RunStopped RunOutcome = "stopped"
	// RunRunning: the run is in progress. Its row is written when it
	// starts and finished in place when it ends.
	RunRunning RunOutcome = "running"
	// RunInterrupted: the agent stopped (killed, crashed, the machine went
	// down) before the run ended; found at the agent's next start, and
	// Run.Note says so. Like a stopped run, its cursor did not move.
	RunInterrupted RunOutcome = "interrupted"
)

// RunsKept is how many runs of each scout its history keeps; older ones
// are pruned as each run is recorded.
const RunsKept = 200

// Run is one run of a scout, as its history keeps it.
type Run struct {
	ID        string
	ScoutID   string
	Trigger   RunTrigger
	StartedAt time.Time
	// FinishedAt is zero while the run runs, and for an interrupted run.
	FinishedAt time.Time
	Outcome    RunOutcome
	Error      string // a failed run's error
	Note       string // why a run was skipped
	// Seen is how many items the source listed (known ones included), New
	// how many became suggestions or entities.
	Seen, New int
	// Tokens is what the run spent on the model, when TokensKnown (a model
	// is configured).
	Tokens      int
	TokensKnown bool
	// DefinitionVersion is the scout's definition version in force when
	// the run started (0: the scout had none yet).
	DefinitionVersion int
}
