package evaluate

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

// Mail is one message of the input.
type Mail struct {
	// Ref is the file's path relative to the input directory, with
	// forward slashes; it is the item's source ref in the engine.
	Ref  string
	Spam bool
	// Hard marks hard ham (the corpus's hard-ham groups, or a folder
	// named hard-ham… on the path): legitimate mail that looks like spam,
	// a stress set whose false positives are reported on their own.
	Hard bool
	Raw  []byte
}

// maxMailBytes bounds one input file: larger files are not mail.
const maxMailBytes = 8 << 20

// Input is what LoadInput found.
type Input struct {
	Mails []Mail
	// Skipped lists files that were not read as mail, with why.
	Skipped []Skipped
	// Layout is "spamassassin" (the package's group folders) or
	// "directory".
	Layout string
}

// Skipped is a file of the input that is not a message.
type Skipped struct {
	Ref, Why string
}

// HeldOutError is the refusal of held-out corpus messages.
type HeldOutError struct {
	Refs []string
}

func (e *HeldOutError) Error() string {
	return fmt.Sprintf("refusing the input: %d file(s), such as %s, are messages of the SpamAssassin corpus's held-out groups "+
		"(spam-2, easy-ham-2; recognised by MD5), which nothing in this project may read, train or tune on; "+
		"remove them from the input (use spam-1, easy-ham-1 and hard-ham-1 only)", len(e.Refs), e.Refs[0])
}

// LoadInput reads the mail under dir: the SpamAssassin package layout
// (only its development groups are read; spam-1 is spam), or else every
// regular file under dir, recursively, where a file is spam when a folder
// on its path is named spam… (spam, spam-1, Spam_2002, …) and hard ham
// when one is named hard-ham…. Files whose
// name or bytes have an MD5 in refuse are refused: the whole input is,
// with a HeldOutError, and names are checked before any file is read.
func LoadInput(dir string, refuse corpus.Sums) (Input, error) {
	if c, err := corpus.Open(dir); err == nil {
		return loadPackage(c, refuse)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return Input{}, fmt.Errorf("evaluate: input: %w", err)
	}
	if !st.IsDir() {
		return Input{}, scouts.Errorf(scouts.EInvalid, "evaluate: %s is not a directory", dir)
	}
	var refs []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			refs = append(refs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return Input{}, fmt.Errorf("evaluate: input: %w", err)
	}
	slices.Sort(refs)
	if err := refuseNames(refs, refuse); err != nil {
		return Input{}, err
	}
	in := Input{Layout: "directory"}
	for _, ref := range refs {
		raw, why, err := readMail(filepath.Join(dir, filepath.FromSlash(ref)))
		if err != nil {
			return Input{}, err
		}
		if why != "" {
			in.Skipped = append(in.Skipped, Skipped{Ref: ref, Why: why})
			continue
		}
		if refuse.Contains(md5.Sum(raw)) {
			return Input{}, &HeldOutError{Refs: []string{ref}}
		}
		spam := spamPath(ref)
		in.Mails = append(in.Mails, Mail{Ref: ref, Spam: spam, Hard: !spam && hardPath(ref), Raw: raw})
	}
	if len(in.Mails) == 0 {
		return Input{}, scouts.Errorf(scouts.ENotFound, "evaluate: no mail under %s", dir)
	}
	return in, nil
}

// loadPackage reads the development groups of an unpacked corpus. The
// groups' file names are checked before Load reads a byte of them.
func loadPackage(c *corpus.Corpus, refuse corpus.Sums) (Input, error) {
	in := Input{Layout: "spamassassin"}
	for _, g := range corpus.DevGroups() {
		entries, err := os.ReadDir(filepath.Join(c.Dir(), string(g)))
		if err != nil {
			return Input{}, fmt.Errorf("evaluate: input: %w", err)
		}
		var refs []string
		for _, e := range entries {
			refs = append(refs, string(g)+"/"+e.Name())
		}
		if err := refuseNames(refs, refuse); err != nil {
			return Input{}, err
		}
		items, err := c.Load(g)
		if err != nil {
			return Input{}, fmt.Errorf("evaluate: input: %w", err)
		}
		for _, it := range items {
			ref := string(g) + "/" + it.Name
			if refuse.Contains(md5.Sum(it.Raw)) {
				return Input{}, &HeldOutError{Refs: []string{ref}}
			}
			in.Mails = append(in.Mails, Mail{Ref: ref, Spam: g.Spam(), Hard: g == corpus.HardHam1, Raw: it.Raw})
		}
	}
	return in, nil
}

// refuseNames refuses files named NNNNN.<md5>.<ext> with a listed MD5
// (the corpus's .json twins carry the same MD5 as the message).
func refuseNames(refs []string, refuse corpus.Sums) error {
	var bad []string
	for _, ref := range refs {
		name := ref[strings.LastIndexByte(ref, '/')+1:]
		if num, rest, ok := strings.Cut(name, "."); ok && len(num) == 5 {
			sum, _, _ := strings.Cut(rest, ".")
			if _, err := hex.DecodeString(sum); err == nil && refuse.ContainsHex(sum) {
				bad = append(bad, ref)
			}
		}
	}
	if len(bad) > 0 {
		return &HeldOutError{Refs: bad}
	}
	return nil
}

// readMail reads one file, or says why it is not mail.
func readMail(p string) ([]byte, string, error) {
	if strings.HasSuffix(p, ".json") {
		return nil, "a .json file", nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, "", fmt.Errorf("evaluate: input: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxMailBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("evaluate: input: %w", err)
	}
	switch {
	case len(raw) > maxMailBytes:
		return nil, "larger than 8 MiB", nil
	case !looksLikeMail(raw):
		return nil, "no mail header", nil
	}
	return raw, "", nil
}

// looksLikeMail checks that the file starts with a header field (or an
// mbox "From " line): the corpus's "cmds" files and other strays are not
// mail.
func looksLikeMail(raw []byte) bool {
	line, _, _ := strings.Cut(string(raw[:min(len(raw), 1000)]), "\n")
	if strings.HasPrefix(line, "From ") {
		return true
	}
	name, _, ok := strings.Cut(line, ":")
	return ok && name != "" && !strings.ContainsAny(name, " \t")
}

// spamPath reports whether a folder on ref's path is named spam….
func spamPath(ref string) bool { return folderNamed(ref, "spam") }

// hardPath reports whether a folder on ref's path is named hard-ham… or
// hard_ham….
func hardPath(ref string) bool { return folderNamed(ref, "hard-ham") || folderNamed(ref, "hard_ham") }

func folderNamed(ref, prefix string) bool {
	parts := strings.Split(ref, "/")
	for _, d := range parts[:len(parts)-1] {
		if strings.HasPrefix(strings.ToLower(d), prefix) {
			return true
		}
	}
	return false
}
