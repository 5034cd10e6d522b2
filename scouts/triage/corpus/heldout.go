package corpus

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// heldOutList is the MD5 of every held-out message, one per line in hex,
// sorted. It was made from the file names in the npm tarball's listing
// (the names are NNNNN.<md5>.txt), without extracting or reading any
// held-out file: a checksum computed from their bytes would have meant
// reading them.
//
//go:embed heldout-md5.txt
var heldOutList []byte

// Sum is an MD5.
type Sum [16]byte

// Sums is a sorted set of MD5s.
type Sums []Sum

// Contains reports whether s is in the set.
func (ss Sums) Contains(s Sum) bool {
	_, ok := slices.BinarySearchFunc(ss, s, func(a, b Sum) int { return bytes.Compare(a[:], b[:]) })
	return ok
}

// ContainsHex reports whether the MD5 written in hex is in the set.
func (ss Sums) ContainsHex(h string) bool {
	var s Sum
	if len(h) != 2*len(s) {
		return false
	}
	if _, err := hex.Decode(s[:], []byte(strings.ToLower(h))); err != nil {
		return false
	}
	return ss.Contains(s)
}

// ParseSums reads MD5s in hex, one per line; blank lines and lines
// starting with # are ignored.
func ParseSums(text []byte) (Sums, error) {
	var out Sums
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var s Sum
		if len(line) != 2*len(s) {
			return nil, fmt.Errorf("checksum list line %d: %q is not an MD5 in hex", n, line)
		}
		if _, err := hex.Decode(s[:], []byte(strings.ToLower(line))); err != nil {
			return nil, fmt.Errorf("checksum list line %d: %w", n, err)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Sum) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(out), nil
}

// HeldOutSums returns the MD5s of the held-out groups' messages (spam-2 and
// easy-ham-2), for refusing them wherever they turn up.
func HeldOutSums() Sums {
	s, err := ParseSums(heldOutList)
	if err != nil {
		panic("corpus: the embedded held-out list is damaged: " + err.Error())
	}
	return s
}
