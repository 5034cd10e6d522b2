package learn

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Item is what the learner may read of one item, transiently: the fields
// every kind of scout can fill. Nothing of it is stored; only the hashes of
// the features extracted from it are.
type Item struct {
	// Source is the scout's kind (gmail, folder, webhook): features of
	// different kinds never collide, so one model can serve any scout.
	Source string
	Sender string // a mail address, or a webhook's sender name
	ListID string // a mailing list's id
	// Signs are short content-free facts from headers or the source:
	// "list", "bulk", "auto-reply", "no-reply", "auth-fail",
	// "attachment", "label:CATEGORY_UPDATES", "verdict:skip", …
	Signs   []string
	Subject string // a mail's subject, a file's or webhook's title
	Body    string // text, where the desktop sees it; may be empty
	Path    string // a file's path relative to its scout's root
}

// Group says what part of an item a feature comes from; explanations are
// phrased per group ("from this sender", "words like …").
type Group uint8

const (
	GroupSender Group = iota + 1
	GroupDomain
	GroupList
	GroupSign
	GroupSubject
	GroupBody
	GroupPath
	GroupExt
	GroupURL
	// GroupListSender is a sender within a list: on a list that carries
	// many senders' mail, who wrote matters more than the list.
	GroupListSender
)

// IsIdentity reports whether g says who sent an item rather than what it
// says: identity clues weigh more for relevance, and for spam only as far
// as they were pure (Params.SpamIdentityWeight).
func (g Group) IsIdentity() bool {
	switch g {
	case GroupSender, GroupDomain, GroupList, GroupListSender:
		return true
	}
	return false
}

// Feature is one feature of an item. Text is the feature as read (a word,
// an address): it exists only in memory, for explanations, and is never
// stored; Hash is what the model keeps.
type Feature struct {
	Hash  uint64
	Group Group
	Text  string
}

// ParticipantSign starts the signs that name the people an item was sent
// to (a mail's recipients' domains; triage.LearnItem writes them). They say
// something about what a person wants, and nothing about spam: a spam
// lesson leaves them out, so that marking one mail of a conversation as
// spam teaches nothing about its other people (issue 19), and for the same
// reason the spam models never read them. Read by a spam model they were
// one-sided — only ever taught as not spam — and the person's own domain,
// on every kept mail, became proof that any mail sent to it was not spam.
const ParticipantSign = "to-domain:"

// Participant reports whether f names a person the item was sent to
// (ParticipantSign).
func (f Feature) Participant() bool {
	return f.Group == GroupSign && strings.HasPrefix(f.Text, ParticipantSign)
}

// Limits on what one item contributes, so a huge body costs bounded time.
const (
	maxBodyBytes   = 16 << 10
	maxFeatures    = 600
	minWordRunes   = 3
	maxWordRunes   = 24
	maxPathDepth   = 6
	subjectBigrams = true
)

// Extract returns the item's features, deduplicated (a word counts once per
// item: the learner counts items, not occurrences), in a stable order.
// salt keys the hash, so that the stored hashes of one installation cannot
// be matched against a dictionary computed without it.
func Extract(it Item, salt uint64) []Feature {
	x := extractor{salt: salt ^ hashString(0, it.Source), seen: make(map[uint64]bool, 128)}
	if addr := strings.ToLower(strings.TrimSpace(it.Sender)); addr != "" {
		x.add(GroupSender, addr)
		if at := strings.LastIndexByte(addr, '@'); at >= 0 && at < len(addr)-1 {
			dom := strings.TrimSuffix(addr[at+1:], ".")
			x.add(GroupDomain, dom)
			if org := orgDomain(dom); org != dom {
				x.add(GroupDomain, org)
			}
		}
	}
	if l := strings.ToLower(strings.Trim(strings.TrimSpace(it.ListID), "<>")); l != "" {
		x.add(GroupList, l)
		if addr := strings.ToLower(strings.TrimSpace(it.Sender)); addr != "" {
			x.add(GroupListSender, l+" "+addr)
		}
	}
	for _, s := range it.Signs {
		x.add(GroupSign, s)
	}
	x.words(GroupSubject, it.Subject, subjectBigrams)
	if it.Path != "" {
		x.path(it.Path)
	}
	body := it.Body
	if len(body) > maxBodyBytes {
		body = body[:maxBodyBytes]
	}
	x.words(GroupBody, body, false)
	return x.out
}

type extractor struct {
	salt uint64
	seen map[uint64]bool
	out  []Feature
}

func (x *extractor) add(g Group, text string) {
	if len(x.out) >= maxFeatures {
		return
	}
	h := featureHash(x.salt, g, text)
	if x.seen[h] {
		return
	}
	x.seen[h] = true
	x.out = append(x.out, Feature{Hash: h, Group: g, Text: text})
}

// words adds the words of s: lower-cased runs of letters and digits (with
// inner ' . - $ kept, so "don't", "v1.2", "$100" stay whole), 3 to 24
// runes, not all digits. Link targets become their host.
func (x *extractor) words(g Group, s string, bigrams bool) {
	prev := ""
	for len(s) > 0 {
		// Skip to the start of a word.
		i := strings.IndexFunc(s, isWordRune)
		if i < 0 {
			return
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) && !isInnerRune(r) })
		if j < 0 {
			j = len(s)
		}
		w := strings.TrimRightFunc(s[:j], isInnerRune)
		rest := s[j:]
		if strings.HasPrefix(rest, "://") && (strings.EqualFold(w, "http") || strings.EqualFold(w, "https")) {
			host, after := linkHost(rest[3:])
			if host != "" {
				x.add(GroupURL, host)
			}
			s = after
			prev = ""
			continue
		}
		s = rest
		n := utf8.RuneCountInString(w)
		switch {
		case n > maxWordRunes:
			// A long run (an encoded blob, a tracking id) says something
			// by its shape, as SpamBayes' "skip" tokens do.
			r, _ := utf8.DecodeRuneInString(w)
			x.add(g, "long:"+string(unicode.ToLower(r))+":"+strconv.Itoa(n/10))
			prev = ""
			continue
		case allDigits(w):
			x.add(g, "num:"+strconv.Itoa(min(n, 12)))
			prev = ""
			continue
		case n < minWordRunes:
			prev = ""
			continue
		}
		w = strings.ToLower(w)
		x.add(g, w)
		if bigrams && prev != "" {
			x.add(g, prev+" "+w)
		}
		prev = w
		if len(x.out) >= maxFeatures {
			return
		}
	}
}

// path adds a file's folders, name words and extension.
func (x *extractor) path(p string) {
	p = strings.ReplaceAll(p, "\\", "/")
	dirs := strings.Split(p, "/")
	name := dirs[len(dirs)-1]
	dirs = dirs[:len(dirs)-1]
	for i, d := range dirs {
		if i >= maxPathDepth || d == "" || d == "." {
			continue
		}
		x.add(GroupPath, strings.ToLower(d))
	}
	if dot := strings.LastIndexByte(name, '.'); dot > 0 && dot < len(name)-1 && len(name)-dot <= 9 {
		x.add(GroupExt, strings.ToLower(name[dot+1:]))
		name = name[:dot]
	}
	x.words(GroupSubject, strings.NewReplacer("_", " ", "-", " ").Replace(name), false)
}

func isWordRune(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' }
func isInnerRune(r rune) bool { return r == '\'' || r == '.' || r == '-' || r == '’' }

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' && r != '-' && r != '$' {
			return false
		}
	}
	return true
}

// linkHost reads a URL's host after "scheme://", lower-cased and without
// "www.", and returns the rest of s after the URL.
func linkHost(s string) (string, string) {
	end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '>' || r == '"' || r == ')' })
	if end < 0 {
		end = len(s)
	}
	u, rest := s[:end], s[end:]
	host := u
	if k := strings.IndexAny(host, "/?#"); k >= 0 {
		host = host[:k]
	}
	if k := strings.LastIndexByte(host, '@'); k >= 0 {
		host = host[k+1:]
	}
	if k := strings.IndexByte(host, ':'); k >= 0 {
		host = host[:k]
	}
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	if len(host) > 253 || !strings.Contains(host, ".") {
		return "", rest
	}
	return host, rest
}

// orgDomain returns the last two labels of a domain (three when the
// second-to-last is a short public suffix such as co.uk): close enough to
// the organisation for "mail from this company" without a suffix list.
func orgDomain(d string) string {
	labels := strings.Split(d, ".")
	if len(labels) <= 2 {
		return d
	}
	n := 2
	if sl := labels[len(labels)-2]; len(sl) <= 3 && slices.Contains([]string{"co", "com", "ac", "org", "net", "gov", "edu", "or", "ne"}, sl) {
		n = 3
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

// featureHash is FNV-1a over the group and text, keyed by salt, finished
// with a 64-bit mixer so that nearby inputs spread over the whole range.
func featureHash(salt uint64, g Group, text string) uint64 {
	h := hashString(salt^uint64(g)*0x9e3779b97f4a7c15, text)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func hashString(seed uint64, s string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// Hashes returns the hashes of fs, sorted: the form the store keeps.
func Hashes(fs []Feature) []uint64 {
	out := make([]uint64, len(fs))
	for i, f := range fs {
		out[i] = f.Hash
	}
	slices.Sort(out)
	return slices.Compact(out)
}
