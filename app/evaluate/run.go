// Package evaluate is `scouts eval`: it measures triage and the learner
// on a corpus of mail by running the product itself — a real engine over
// a temporary database, fed by an in-memory mailbox — and playing a
// simulated user who decides cards according to a policy.
package evaluate

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// Options say what to evaluate.
type Options struct {
	// Input is the mail; with TestInput, only the training part.
	Input Input
	// TestInput, when set, is the test part (SplitDirs): Input is
	// decided, TestInput only scored.
	TestInput *Input
	Policy    Policy
	// User is the simulated person: UserRealistic (default) or
	// UserConfirmAll.
	User User
	// Split says how the mail is cut into a part the user decides and a
	// part only scored: SplitDate (default for the realistic user),
	// SplitCount (default for confirm-all), SplitDirs (with TestInput).
	Split Split
	// Train is how many arriving mails the user sees before the rest are
	// only scored, for SplitCount. Default 400.
	Train int
	// Batch is how many mails arrive between two looks of the user.
	// Default 50 for the realistic user, 1 for confirm-all.
	Batch int
	// NoImplicit leaves out implicit feedback: cards left alone in Spam
	// or Screened never teach (Settings.SilenceDays 0 does the same).
	// With it, silence settles the cards a batch left alone after the
	// next batch: SettleSilent runs with the clock moved past the grace
	// period since the batch before.
	NoImplicit bool
	Seed       uint64
	// Checkpoints are the decision counts at which the test part is
	// scored; it is scored after the whole training part too. Default
	// DefaultCheckpoints(User).
	Checkpoints []int
	// SpamCV, when above 1, also runs K-fold cross-validation of spam
	// alone.
	SpamCV int
	// Compare also runs the in-memory comparison of learners.
	Compare bool
	// Settings are the scout's learner thresholds; zero means the
	// product's defaults.
	Settings scouts.LearnSettings
	// Dir holds the temporary databases; default a new temporary folder.
	Dir string
	// Progress receives a line per phase; nil is silent.
	Progress io.Writer
	// MinMeasure is how much CPU each step is run for when measured on
	// its own. Default 300 ms.
	MinMeasure time.Duration
	// Trace, when set, is told every card the user found and what they
	// did, and what silence settled (tests check the user's rules).
	Trace func(TraceEvent)
}

// Split is how the mail is cut into a training and a test part.
type Split string

const (
	// SplitDate orders the mail by its Date header: the earlier half
	// arrives and is decided, the later half is only scored.
	SplitDate Split = "date"
	// SplitCount decides the first Train arrivals in an order shuffled
	// by the seed and scores the rest.
	SplitCount Split = "count"
	// SplitDirs decides one directory and scores another.
	SplitDirs Split = "dirs"
)

// DefaultCheckpoints are the learning curve's decision counts: the
// targets' for the realistic user, the short curve of the 400 decisions
// confirm-all makes by default otherwise.
func DefaultCheckpoints(u User) []int {
	if u == UserConfirmAll {
		return []int{25, 50, 100, 200, 400}
	}
	return []int{100, 200, 300, 1000}
}

// Report is everything the evaluation measured.
type Report struct {
	Input    InputSummary         `json:"input"`
	Seed     uint64               `json:"seed"`
	Settings scouts.LearnSettings `json:"settings"`
	// User, Split and Batch say how the evaluation was played; Implicit
	// whether cards left alone taught (SettleSilent after each batch).
	User     User  `json:"user"`
	Split    Split `json:"split"`
	Batch    int   `json:"batch"`
	Implicit bool  `json:"implicit"`
	// Train and Test are the sizes of the two parts; TestFrom is the
	// Date the later part starts at (date split).
	Train    int       `json:"train"`
	Test     int       `json:"test"`
	TestFrom time.Time `json:"test_from,omitzero"`
	// Accounting says what became of every message.
	Accounting Accounting `json:"accounting"`
	// Person is what the simulated user did over the training part.
	Person Person `json:"person"`
	// Curve holds the test part's scores after each checkpoint's number
	// of decisions; the last is the final result, after the whole
	// training part.
	Curve []Scores `json:"curve"`
	// Training is what the user saw while deciding the training part.
	Training Scores `json:"training"`
	// Throughput of the product path scoring the test part after all
	// decisions, and of its steps alone.
	Throughput Throughput `json:"throughput"`
	// Update is the time of each decision call (approve, reject, mark
	// spam, bring back), each one database transaction that also teaches
	// the learner.
	Update Latency `json:"update"`
	// UpdateFloor is a bare SQLite insert of the same feature rows, in a
	// database of the same settings.
	UpdateFloor Latency `json:"update_floor"`
	// Model is the learner's size after the training part.
	Model Footprint `json:"model"`

	SpamCV  *SpamCV     `json:"spam_cv,omitempty"`
	Compare *Comparison `json:"compare,omitempty"`
}

// Final is the test part's scores after the whole training part.
func (r Report) Final() Scores {
	if len(r.Curve) == 0 {
		return Scores{}
	}
	return r.Curve[len(r.Curve)-1]
}

// InputSummary describes the corpus and the policy's view of it.
type InputSummary struct {
	Layout   string         `json:"layout"`
	Messages int            `json:"messages"`
	Spam     int            `json:"spam"`
	Ham      int            `json:"ham"`
	Wanted   int            `json:"wanted"`
	ByKind   map[string]int `json:"wanted_by_kind"`
	Skipped  int            `json:"skipped"`
}

// Accounting proves every message was used exactly once.
type Accounting struct {
	Messages int `json:"messages"`
	// Trained is how many arrived while the user was deciding (the
	// realistic user decides only some of them: Person.Decisions).
	Trained int `json:"trained"`
	// Scored is the size of the test part; each checkpoint scores all
	// of it.
	Scored     int `json:"scored"`
	Unreadable int `json:"unreadable"`
	Skipped    int `json:"skipped"`
}

// Throughput is messages per CPU second (user + system, all threads).
type Throughput struct {
	// CPU is false where CPU time cannot be read; the figures are then
	// per wall second.
	CPU      bool    `json:"cpu"`
	Messages int     `json:"messages"`
	Product  float64 `json:"product_per_core_s"`    // the whole arrival path
	Parse    float64 `json:"parse_per_core_s"`      // headers and 4,000 runes of text
	Heur     float64 `json:"heuristics_per_core_s"` // triage without a model
	Cues     float64 `json:"cues_per_core_s"`       // the content step (kind, dates, project)
	Extract  float64 `json:"extract_per_core_s"`    // learner features
	Predict  float64 `json:"predict_per_core_s"`    // counts through the store + prediction
	// PredictMem is the same prediction on a plain map of the counts:
	// the floor of any store.
	PredictMem float64 `json:"predict_memory_per_core_s"`
	Learner    float64 `json:"learner_heuristics_per_core_s"`
	// WithParse adds reading the mail to Learner.
	WithParse float64 `json:"parse_learner_heuristics_per_core_s"`
}

// Latency is a distribution of durations, in microseconds.
type Latency struct {
	N      int     `json:"n"`
	Median float64 `json:"median_us"`
	P99    float64 `json:"p99_us"`
	Max    float64 `json:"max_us"`
}

func latency(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return Latency{N: len(s), Median: us(s[len(s)/2]), P99: us(s[min(len(s)-1, len(s)*99/100)]), Max: us(s[len(s)-1])}
}

// Footprint is the learner's size in the database.
type Footprint struct {
	Decisions    int   `json:"decisions"`
	Features     int   `json:"features"`
	FeatureBytes int64 `json:"feature_bytes"`
	Items        int   `json:"items"`
	ItemBytes    int64 `json:"item_bytes"`
}

// judged is a mail with what the simulated user thinks of it.
type judged struct {
	mail   *Mail
	wanted bool // never for spam
	kind   scouts.EntityKind
	// date is the mail's Date header (zero when it has none readable).
	date time.Time
}

// judge applies the policy to every mail (its headers, neutralised as
// the product sees them) and shuffles them into arrival order.
func judge(in Input, pol Policy, seed uint64) []judged {
	out := make([]judged, 0, len(in.Mails))
	for i := range in.Mails {
		m := &in.Mails[i]
		j := judged{mail: m}
		if msg, err := mailtext.Parse(m.Raw, mailtext.Options{}); err == nil {
			corpus.Neutralize(&msg)
			j.date = msg.Date
			if !m.Spam {
				j.wanted, j.kind = pol.Judge(msg)
			}
		}
		out = append(out, j)
	}
	r := rand.New(rand.NewPCG(seed, 0x5c0075))
	r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}

func summarize(layout string, skipped int, js []judged) InputSummary {
	s := InputSummary{Layout: layout, Messages: len(js), Skipped: skipped, ByKind: map[string]int{}}
	for _, j := range js {
		switch {
		case j.mail.Spam:
			s.Spam++
		default:
			s.Ham++
		}
		if j.wanted {
			s.Wanted++
			s.ByKind[string(j.kind)]++
		}
	}
	return s
}

// byDate orders mail by its Date header, stably (mail without a readable
// Date first, in the order given): the order it arrived in.
func byDate(js []judged) []judged {
	slices.SortStableFunc(js, func(a, b judged) int { return a.date.Compare(b.date) })
	return js
}

// defaults fills in what the options leave out, and checks them.
func (o *Options) defaults() error {
	if o.User == "" {
		o.User = UserRealistic
	}
	if o.User != UserRealistic && o.User != UserConfirmAll {
		return scouts.Errorf(scouts.EInvalid, "evaluate: user %q: want %q or %q", o.User, UserRealistic, UserConfirmAll)
	}
	switch {
	case o.TestInput != nil && o.Split != "" && o.Split != SplitDirs:
		return scouts.Errorf(scouts.EInvalid, "evaluate: a test directory is its own split; --split %s does not go with it", o.Split)
	case o.TestInput != nil:
		o.Split = SplitDirs
	case o.Split == SplitDirs:
		return scouts.Errorf(scouts.EInvalid, "evaluate: the directory split needs a test directory")
	case o.Split == "" && o.User == UserRealistic && o.Train == 0:
		o.Split = SplitDate
	case o.Split == "":
		o.Split = SplitCount
	}
	switch o.Split {
	case SplitCount:
		if o.Train == 0 {
			o.Train = 400
		}
	case SplitDate, SplitDirs:
		if o.Train != 0 {
			return scouts.Errorf(scouts.EInvalid, "evaluate: a number of training messages goes with the count split, not --split %s", o.Split)
		}
	default:
		return scouts.Errorf(scouts.EInvalid, "evaluate: split %q: want %q, %q or a test directory", o.Split, SplitDate, SplitCount)
	}
	if o.Batch == 0 {
		o.Batch = 50
		if o.User == UserConfirmAll {
			o.Batch = 1
		}
	}
	if o.Batch < 1 {
		return scouts.Errorf(scouts.EInvalid, "evaluate: batch %d: want at least 1", o.Batch)
	}
	if o.MinMeasure <= 0 {
		o.MinMeasure = defaultMeasure
	}
	if o.Checkpoints == nil {
		o.Checkpoints = DefaultCheckpoints(o.User)
	}
	if o.Settings == (scouts.LearnSettings{}) {
		o.Settings = scouts.DefaultLearnSettings()
	}
	if o.NoImplicit {
		o.Settings.SilenceDays = 0 // the engine's own sweep must not settle either
	}
	return o.Settings.Validate()
}

// parts cuts the judged mail into the part the user decides, in the order
// it arrives, and the part only scored.
func (o Options) parts() (all, train, test []judged, err error) {
	switch o.Split {
	case SplitDirs:
		train = byDate(judge(o.Input, o.Policy, o.Seed))
		test = byDate(judge(*o.TestInput, o.Policy, o.Seed))
		all = append(slices.Clone(train), test...)
		if len(train) == 0 || len(test) == 0 {
			return nil, nil, nil, scouts.Errorf(scouts.EInvalid, "evaluate: the training and the test directories must each hold mail")
		}
		return all, train, test, nil
	case SplitDate:
		all = byDate(judge(o.Input, o.Policy, o.Seed))
		if len(all) < 2 {
			return nil, nil, nil, scouts.Errorf(scouts.EInvalid, "evaluate: the date split needs at least 2 messages")
		}
		n := len(all) / 2
		return all, all[:n], all[n:], nil
	}
	all = judge(o.Input, o.Policy, o.Seed)
	if o.Train < 1 || o.Train >= len(all) {
		return nil, nil, nil, scouts.Errorf(scouts.EInvalid, "evaluate: --train %d must be between 1 and %d (the input holds %d messages and the rest are the test part)", o.Train, len(all)-1, len(all))
	}
	return all, all[:o.Train], all[o.Train:], nil
}

// Run evaluates.
func Run(ctx context.Context, o Options) (Report, error) {
	if err := o.defaults(); err != nil {
		return Report{}, err
	}
	js, train, test, err := o.parts()
	if err != nil {
		return Report{}, err
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "scouts-eval-")
		if err != nil {
			return Report{}, fmt.Errorf("evaluate: %w", err)
		}
		defer os.RemoveAll(d)
		o.Dir = d
	}
	skipped := len(o.Input.Skipped)
	layout := o.Input.Layout
	if o.TestInput != nil {
		skipped += len(o.TestInput.Skipped)
		if o.TestInput.Layout != layout {
			layout += " + " + o.TestInput.Layout
		}
	}
	rep := Report{Input: summarize(layout, skipped, js), Seed: o.Seed, Settings: o.Settings, User: o.User, Split: o.Split, Batch: o.Batch,
		Train: len(train), Test: len(test)}
	if o.Split == SplitDate {
		rep.TestFrom = test[0].date
	}
	rep.Accounting = Accounting{Messages: len(js), Skipped: skipped}
	if err := runMain(ctx, o, train, test, &rep); err != nil {
		return rep, err
	}
	if o.SpamCV > 1 {
		cv, err := runSpamCV(ctx, o, js)
		if err != nil {
			return rep, err
		}
		rep.SpamCV = &cv
	}
	if o.Compare {
		k := o.SpamCV
		if k < 2 {
			k = 5
		}
		c, err := runCompare(ctx, o, js, k)
		if err != nil {
			return rep, err
		}
		rep.Compare = &c
	}
	return rep, nil
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}
