package corpus_test

import (
	"crypto/md5"
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
)

// These tests read the corpus through corpustest, which imports corpus:
// hence an external test package.

// The development groups load completely, with the sizes CORPUS.md gives
// and every file matching the MD5 in its name.
func TestLoadDevGroups(t *testing.T) {
	c := corpustest.ForTest(t)
	want := map[corpus.Group]int{corpus.Spam1: 500, corpus.EasyHam1: 2500, corpus.HardHam1: 250}
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != want[g] {
			t.Errorf("%s: %d messages, want %d", g, len(items), want[g])
		}
		for _, it := range items {
			if it.Group != g || len(it.Raw) == 0 {
				t.Fatalf("%s/%s: bad item", g, it.Name)
			}
		}
	}
}

// The embedded list holds every held-out message's MD5 (1,396 spam-2 and
// 1,400 easy-ham-2, none shared) and none of the development groups'.
func TestHeldOutSums(t *testing.T) {
	sums := corpus.HeldOutSums()
	if len(sums) != 2796 {
		t.Fatalf("%d held-out checksums, want 2796", len(sums))
	}
	c := corpustest.ForTest(t)
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if sum := corpus.Sum(md5.Sum(it.Raw)); sums.Contains(sum) || sums.ContainsHex(corpus.NameSum(it.Name)) {
				t.Errorf("development message %s/%s is on the held-out list", g, it.Name)
			}
		}
	}
	if _, err := corpus.ParseSums([]byte("# comment\n\nnot-a-sum\n")); err == nil {
		t.Error("a malformed list was accepted")
	}
}
