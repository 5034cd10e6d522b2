package evaluate

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
)

// slice writes a small part of the development corpus into a directory of
// mail files: spam under spam/, the rest under ham/.
func slice(t *testing.T, perGroup map[corpus.Group]int) string {
	t.Helper()
	c := corpustest.ForTest(t)
	dir := t.TempDir()
	for g, n := range perGroup {
		items, err := c.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, "ham", string(g))
		if g.Spam() {
			sub = filepath.Join(dir, "spam")
		}
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		// Every tenth message: a slice across the group, lists included.
		for i := 0; i < len(items) && n > 0; i += 10 {
			if err := os.WriteFile(filepath.Join(sub, items[i].Name), items[i].Raw, 0o644); err != nil {
				t.Fatal(err)
			}
			n--
		}
	}
	return dir
}

// The evaluation runs the product over a slice of the corpus and accounts
// for every message exactly once: each is decided in the training part or
// scored (at every checkpoint) in the test part, and the learning curve
// has the checkpoints asked for. No figure is asserted.
func TestEvaluateAccountsForEveryMessage(t *testing.T) {
	dir := slice(t, map[corpus.Group]int{corpus.Spam1: 30, corpus.EasyHam1: 120, corpus.HardHam1: 10})
	// A stray that is not mail is skipped, and said to be.
	if err := os.WriteFile(filepath.Join(dir, "cmds"), []byte("mv 00001 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := LoadInput(dir, corpus.HeldOutSums())
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Mails) != 160 || len(in.Skipped) != 1 || in.Layout != "directory" {
		t.Fatalf("input: %d mails, skipped %v, layout %s", len(in.Mails), in.Skipped, in.Layout)
	}
	spam := 0
	for _, m := range in.Mails {
		if m.Spam != strings.HasPrefix(m.Ref, "spam/") {
			t.Fatalf("%s labelled spam=%v", m.Ref, m.Spam)
		}
		if m.Spam {
			spam++
		}
	}
	if spam != 30 {
		t.Fatalf("%d spam, want 30", spam)
	}

	rep, err := Run(context.Background(), Options{Input: in, Policy: DefaultPolicy(), User: UserConfirmAll, Train: 60, Seed: 7,
		Checkpoints: []int{25, 50, 100}, SpamCV: 2, Dir: t.TempDir(), MinMeasure: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Accounting
	if a.Messages != 160 || a.Trained+a.Scored+a.Unreadable != a.Messages || a.Trained != 60 || a.Skipped != 1 || rep.Person.Decisions != 60 {
		t.Fatalf("accounting %+v", a)
	}
	if rep.Train != 60 || rep.Test != 100 {
		t.Fatalf("train %d, test %d", rep.Train, rep.Test)
	}
	var cps []int
	for _, c := range rep.Curve {
		cps = append(cps, c.Decisions)
		lanes := 0
		for _, n := range c.Lanes {
			lanes += n
		}
		if c.Messages != rep.Test || lanes != rep.Test || c.TP+c.FP+c.FN+c.TN != rep.Test {
			t.Fatalf("checkpoint %d scored %d messages (lanes %d), want the %d of the test part", c.Decisions, c.Messages, lanes, rep.Test)
		}
	}
	if !equalInts(cps, []int{25, 50, 60}) {
		t.Fatalf("checkpoints %v, want [25 50 60] (those reached, and after the whole training part)", cps)
	}
	if rep.Training.Messages != 60 {
		t.Fatalf("training saw %d cards", rep.Training.Messages)
	}
	if rep.Update.N < 60 || rep.Model.Decisions != 60 || rep.Model.Features == 0 || rep.Model.FeatureBytes == 0 {
		t.Fatalf("update %+v, model %+v", rep.Update, rep.Model)
	}
	cv := rep.SpamCV
	if cv == nil || cv.Spam+cv.Ham != 160 || cv.TP+cv.FN != 30 || len(cv.Growth) == 0 {
		t.Fatalf("spam cross-validation %+v", cv)
	}
	// --json prints the whole report, and the text report says what it
	// measured.
	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("the report does not encode as JSON: %v", err)
	}
	var text strings.Builder
	rep.Print(&text)
	for _, want := range []string{"Learning curve", "Accounting: 160 messages = 60 arrived while the user decided + 100 scored", "spam caught", "cross-validation"} {
		if !strings.Contains(text.String(), want) {
			t.Fatalf("the report lacks %q:\n%s", want, text.String())
		}
	}

	// The same input and seed give the same decisions and lanes.
	again, err := Run(context.Background(), Options{Input: in, Policy: DefaultPolicy(), User: UserConfirmAll, Train: 60, Seed: 7,
		Checkpoints: []int{25, 50}, Dir: t.TempDir(), MinMeasure: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range again.Curve {
		if !equalLanes(again.Curve[i].Lanes, rep.Curve[i].Lanes) {
			t.Fatalf("checkpoint %d: lanes %v, then %v", rep.Curve[i].Decisions, rep.Curve[i].Lanes, again.Curve[i].Lanes)
		}
	}
}

// Files of the held-out groups are refused by checksum, whatever they are
// called and wherever they are; files named after a held-out MD5 are
// refused by name before anything is read. The real list holds only
// held-out MD5s, so the test injects its own.
func TestEvaluateRefusesHeldOutChecksums(t *testing.T) {
	dir := slice(t, map[corpus.Group]int{corpus.Spam1: 3, corpus.EasyHam1: 3})
	var victim, victimSum string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && victim == "" {
			raw, _ := os.ReadFile(p)
			sum := md5.Sum(raw)
			victim, victimSum = p, hex.EncodeToString(sum[:])
		}
		return nil
	})
	// Renamed, so that only its bytes can give it away.
	renamed := filepath.Join(filepath.Dir(victim), "renamed.eml")
	if err := os.Rename(victim, renamed); err != nil {
		t.Fatal(err)
	}
	list, err := corpus.ParseSums([]byte("# injected\n" + victimSum + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	var held *HeldOutError
	_, err = LoadInput(dir, list)
	if !errors.As(err, &held) || !strings.HasSuffix(held.Refs[0], "renamed.eml") || !strings.Contains(err.Error(), "held-out") {
		t.Fatalf("a held-out message was not refused by its bytes: %v", err)
	}
	if _, err := LoadInput(dir, corpus.HeldOutSums()); err != nil {
		t.Fatalf("development mail refused: %v", err)
	}

	// By name: the file's content is not even on the list.
	other := strings.Repeat("0", 31) + "1"
	named := filepath.Join(dir, "ham", "00001."+other+".txt")
	if err := os.WriteFile(named, []byte("From: a@example.org\nSubject: x\n\nhello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, _ = corpus.ParseSums([]byte(other + "\n"))
	if _, err = LoadInput(dir, list); !errors.As(err, &held) || !strings.HasSuffix(held.Refs[0], "00001."+other+".txt") {
		t.Fatalf("a file named after a held-out MD5 was not refused: %v", err)
	}
}

// The shipped policy parses; bad policies are refused with the reason.
func TestPolicy(t *testing.T) {
	p := DefaultPolicy()
	if len(p.Want) == 0 || p.Default != "reject" {
		t.Fatalf("default policy %+v", p)
	}
	for _, bad := range []string{
		`{"want":[{"list":"a","domain":"b","kind":"task"}]}`,
		`{"want":[{"kind":"task"}]}`,
		`{"want":[{"list":"a","kind":"chore"}]}`,
		`{"want":[],"default":"maybe"}`,
		`{"want":[],"no_list":"maybe"}`,
		`{"wants":[]}`,
	} {
		if _, err := ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("policy %s accepted", bad)
		}
	}
	p, err := ParsePolicy([]byte(`{"want":[{"domain":"Example.org","kind":"notes"},{"list":"<Dev.Example.net>","kind":"task"},
		{"sender":"feeds@example.com","kind":"reject"}], "no_list":"event"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		from, list string
		want       bool
		kind       scouts.EntityKind
	}{
		{"a@mail.example.org", "", true, scouts.EntityNote},
		{"a@badexample.org", "", true, scouts.EntityEvent}, // no list: no_list
		{"a@badexample.org", "other.example.net", false, ""},
		{"feeds@example.com", "", false, ""}, // an exception before no_list
		{"a@x.com", "dev.example.net", true, scouts.EntityTask},
	} {
		m := messageFrom(c.from, c.list)
		if w, k := p.Judge(m); w != c.want || k != c.kind {
			t.Errorf("%s %s: %v %s, want %v %s", c.from, c.list, w, k, c.want, c.kind)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalLanes(a, b map[scouts.Lane]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func messageFrom(from, list string) triage.Message {
	return triage.Message{From: triage.Address{Addr: from}, ListID: list}
}
