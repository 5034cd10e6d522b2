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
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// Options say what to evaluate.
type Options struct {
	Input  Input
	Policy Policy
	// Train is how many arriving mails the user decides before the rest
	// are only scored. Default 400.
	Train int
	Seed  uint64
	// Checkpoints are the decision counts at which the test part is
	// scored (those up to Train, and Train itself). Default 25, 50, 100,
	// 200, 400.
	Checkpoints []int
	// SpamCV, when above 1, also runs K-fold cross-validation of spam
	// alone.
	SpamCV int
	// Compare also runs the in-memory comparison of the product's
	// Robinson–Fisher learner with online logistic regression.
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
}

// DefaultCheckpoints are the learning curve's decision counts.
func DefaultCheckpoints() []int { return []int{25, 50, 100, 200, 400} }

// Report is everything the evaluation measured.
type Report struct {
	Input    InputSummary         `json:"input"`
	Seed     uint64               `json:"seed"`
	Settings scouts.LearnSettings `json:"settings"`
	// Train and Test are the sizes of the two parts.
	Train int `json:"train"`
	Test  int `json:"test"`
	// Accounting says what became of every message.
	Accounting Accounting `json:"accounting"`
	// Curve holds the test part's scores after each checkpoint's number
	// of decisions; the last is the final result.
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
	Decided  int `json:"decided"`
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
}

// judge applies the policy to every mail (its headers, neutralised as
// the product sees them) and shuffles them into arrival order.
func judge(in Input, pol Policy, seed uint64) []judged {
	out := make([]judged, 0, len(in.Mails))
	for i := range in.Mails {
		m := &in.Mails[i]
		j := judged{mail: m}
		if msg, err := mailtext.Parse(m.Raw, mailtext.Options{}); err == nil && !m.Spam {
			corpus.Neutralize(&msg)
			j.wanted, j.kind = pol.Judge(msg)
		}
		out = append(out, j)
	}
	r := rand.New(rand.NewPCG(seed, 0x5c0075))
	r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}

func summarize(in Input, js []judged) InputSummary {
	s := InputSummary{Layout: in.Layout, Messages: len(js), Skipped: len(in.Skipped), ByKind: map[string]int{}}
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

// Run evaluates.
func Run(ctx context.Context, o Options) (Report, error) {
	if o.Train == 0 {
		o.Train = 400
	}
	if o.MinMeasure <= 0 {
		o.MinMeasure = defaultMeasure
	}
	if o.Checkpoints == nil {
		o.Checkpoints = DefaultCheckpoints()
	}
	if o.Settings == (scouts.LearnSettings{}) {
		o.Settings = scouts.DefaultLearnSettings()
	}
	if err := o.Settings.Validate(); err != nil {
		return Report{}, err
	}
	js := judge(o.Input, o.Policy, o.Seed)
	if o.Train < 1 || o.Train >= len(js) {
		return Report{}, scouts.Errorf(scouts.EInvalid, "evaluate: --train %d must be between 1 and %d (the input holds %d messages and the rest are the test part)", o.Train, len(js)-1, len(js))
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "scouts-eval-")
		if err != nil {
			return Report{}, fmt.Errorf("evaluate: %w", err)
		}
		defer os.RemoveAll(d)
		o.Dir = d
	}
	rep := Report{Input: summarize(o.Input, js), Seed: o.Seed, Settings: o.Settings, Train: o.Train, Test: len(js) - o.Train}
	rep.Accounting = Accounting{Messages: len(js), Skipped: len(o.Input.Skipped)}
	if err := runMain(ctx, o, js, &rep); err != nil {
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

// checkpoints returns the sorted checkpoints up to train, with train.
func checkpoints(cps []int, train int) []int {
	var out []int
	for _, c := range cps {
		if c > 0 && c < train {
			out = append(out, c)
		}
	}
	out = append(out, train)
	slices.Sort(out)
	return slices.Compact(out)
}

// runMain plays the user over the training part, scoring the test part at
// every checkpoint.
func runMain(ctx context.Context, o Options, js []judged, rep *Report) error {
	dir, err := os.MkdirTemp(o.Dir, "main-")
	if err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	p, err := newProduct(ctx, dir, o.Settings)
	if err != nil {
		return err
	}
	defer p.close()
	p.measure = o.MinMeasure
	train, test := js[:o.Train], js[o.Train:]
	cps := checkpoints(o.Checkpoints, o.Train)
	var durations []time.Duration
	var seen []scored
	decided := 0
	for _, cp := range cps {
		for ; decided < cp; decided++ {
			j := train[decided]
			p.tick(3 * time.Minute)
			if err := p.arrive(ctx, []string{j.mail.Ref}, []*Mail{j.mail}); err != nil {
				return err
			}
			s, ok, err := p.find(ctx, j.mail.Ref)
			if err != nil {
				return err
			}
			if !ok {
				rep.Accounting.Unreadable++
				continue
			}
			seen = append(seen, scored{j: j, s: s})
			ds, err := p.decide(ctx, s, j)
			if err != nil {
				return err
			}
			durations = append(durations, ds...)
			rep.Accounting.Decided++
		}
		last := cp == cps[len(cps)-1]
		o.progress("scoring the %d test messages after %d decisions", len(test), cp)
		sc, tp, err := p.score(ctx, "after-"+strconv.Itoa(cp)+"/", test, last)
		if err != nil {
			return err
		}
		sc.Decisions = cp
		rep.Curve = append(rep.Curve, sc)
		if last {
			rep.Throughput = tp
			rep.Accounting.Scored = sc.Messages
		}
	}
	rep.Training = scoresOf(seen)
	rep.Training.Decisions = rep.Accounting.Decided
	rep.Update = latency(durations)
	fp, err := p.footprint(ctx)
	if err != nil {
		return err
	}
	rep.Model = fp
	o.progress("measuring the steps alone and the insert floor")
	if err := p.measureSteps(ctx, test, &rep.Throughput); err != nil {
		return err
	}
	floor, err := insertFloor(ctx, dir, p, train)
	if err != nil {
		return err
	}
	rep.UpdateFloor = floor
	return nil
}
