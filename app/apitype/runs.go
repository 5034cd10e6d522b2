package apitype

import "time"

// Schedule is when a scout runs by itself and how its runs overlap; the
// same object as a scout definition's "schedule" (docs/schedules.md).
type Schedule struct {
	// Cron: five fields (minute hour day-of-month month day-of-week) or
	// @hourly, @daily, @every 10m; empty: no schedule of its own.
	Cron string `json:"cron,omitempty"`
	// TimeZone is an IANA zone (Europe/Paris); empty: the machine's.
	TimeZone string `json:"time_zone,omitempty"`
	// Overlap: skip, queue-one (default) or allow.
	Overlap string `json:"overlap,omitempty"`
	// CatchUp: run-once (default) or skip, after the agent was off.
	CatchUp string `json:"catch_up,omitempty"`
}

// Budget caps a scout's model tokens: per run and per UTC day, never above
// the agent's global hard cap (--llm-daily-tokens). 0: the global cap.
type Budget struct {
	RunTokens int `json:"run_tokens,omitempty"`
	DayTokens int `json:"day_tokens,omitempty"`
}

// BudgetStatus is a scout's model budget today (with a model configured).
type BudgetStatus struct {
	DayCap     int `json:"day_cap"`
	RunCap     int `json:"run_cap,omitempty"`
	SpentToday int `json:"spent_today"`
	// Spent: the day's cap is reached; the scout uses rules and its learner
	// only until ResetsAt. RunSpent: its last run hit the run cap.
	Spent    bool      `json:"spent"`
	RunSpent bool      `json:"run_spent,omitempty"`
	ResetsAt time.Time `json:"resets_at"`
	Message  string    `json:"message,omitempty"`
}

// SpentBudget is a scout over its model budget, in the status.
type SpentBudget struct {
	ScoutID   string    `json:"scout_id"`
	ScoutName string    `json:"scout_name"`
	Message   string    `json:"message"`
	ResetsAt  time.Time `json:"resets_at"`
}

// Secrets is GET /api/v1/secrets: the names of the secrets in the OS
// keyring. Values are never answered.
type Secrets struct {
	Names []string `json:"names"`
}

// SecretValue is the body of PUT /api/v1/secrets/{name}.
type SecretValue struct {
	Value string `json:"value"`
}

// Run is one run of a scout, as GET /api/v1/scouts/{id}/runs answers
// (docs/schedules.md, "Runs").
type Run struct {
	ID      string `json:"id"`
	ScoutID string `json:"scout_id"`
	// Trigger: start, schedule, catch-up, manual, resume, source or poll.
	Trigger   string    `json:"trigger"`
	StartedAt time.Time `json:"started_at"`
	// FinishedAt is null while the run runs, and for an interrupted run.
	FinishedAt *time.Time `json:"finished_at"`
	// Outcome: ok, failed (Error says why), skipped (Note says why),
	// stopped (the scout stopped mid-run; nothing was lost), running, or
	// interrupted (the agent died before the run ended; Note says so).
	Outcome   string `json:"outcome"`
	Error     string `json:"error,omitempty"`
	Note      string `json:"note,omitempty"`
	ItemsSeen int    `json:"items_seen"`
	ItemsNew  int    `json:"items_new"`
	// ModelTokens is what the run spent on the model; null without one.
	ModelTokens *int `json:"model_tokens"`
	// DefinitionVersion is the scout's definition version in force when
	// the run started (GET /api/v1/scouts/{id}/versions); 0: none yet.
	DefinitionVersion int `json:"definition_version"`
}
