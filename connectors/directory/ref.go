package directory

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// refHashLen is how many hex digits of the SHA-256 a ref carries: 64 bits
// tell apart the versions of one path with room to spare.
const refHashLen = 16

// FormatRef returns the ref of the file at rel (slash separated, relative to
// the root) whose content hashes to hash (hex SHA-256; only its first 16
// digits are kept; empty for a problem that has no content).
//
// Refs are valid UTF-8 so they can be stored and shown anywhere: bytes of
// rel that are not valid UTF-8 are written as \xNN and "\" as "\\". "@" is
// not escaped because the hash follows the last "@".
func FormatRef(rel, hash string) string {
	if len(hash) > refHashLen {
		hash = hash[:refHashLen]
	}
	var b strings.Builder
	b.Grow(len(rel) + 1 + len(hash))
	for i := 0; i < len(rel); {
		r, size := utf8.DecodeRuneInString(rel[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, rel[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(rel[i : i+size])
		}
		i += size
	}
	b.WriteByte('@')
	b.WriteString(hash)
	return b.String()
}

// ParseRef splits a ref made by FormatRef into the file's relative path (its
// original bytes) and the hash prefix. It checks the ref's syntax only; the
// path is checked when it is resolved under the root.
func ParseRef(ref string) (rel, hash string, err error) {
	at := strings.LastIndexByte(ref, '@')
	if at < 0 {
		return "", "", fmt.Errorf("directory: ref %q has no \"@\"", ref)
	}
	esc, hash := ref[:at], ref[at+1:]
	if hash != "" && (len(hash) != refHashLen || strings.Trim(hash, "0123456789abcdef") != "") {
		return "", "", fmt.Errorf("directory: ref %q: %q is not a %d-digit hex hash", ref, hash, refHashLen)
	}
	var b strings.Builder
	b.Grow(len(esc))
	for i := 0; i < len(esc); i++ {
		c := esc[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		switch {
		case i+1 < len(esc) && esc[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case i+3 < len(esc) && esc[i+1] == 'x' && isHex(esc[i+2]) && isHex(esc[i+3]):
			b.WriteByte(unhex(esc[i+2])<<4 | unhex(esc[i+3]))
			i += 3
		default:
			return "", "", fmt.Errorf("directory: ref %q has a bad escape at byte %d", ref, i)
		}
	}
	if b.Len() == 0 {
		return "", "", fmt.Errorf("directory: ref %q has an empty path", ref)
	}
	return b.String(), hash, nil
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// checkRel reports whether rel names an entry inside the root: relative,
// clean, slash separated, no "..", no NUL. Refs come from the database and
// from other processes, so they are never trusted to stay in the root.
func checkRel(rel string) error {
	switch {
	case rel == "" || rel == ".":
		return invalid("the path is empty")
	case strings.HasPrefix(rel, "/") || filepath.VolumeName(filepath.FromSlash(rel)) != "" ||
		(filepath.Separator == '\\' && strings.Contains(rel, "\\")):
		// "\" is an ordinary byte of a Unix file name but a separator on
		// Windows, where it could smuggle in "..".
		return invalid("path %q is absolute; only paths inside the watched folder are allowed", displayString(rel))
	case strings.IndexByte(rel, 0) >= 0:
		return invalid("path %q contains a NUL byte", displayString(rel))
	case path.Clean(rel) != rel:
		return invalid("path %q is not in clean form", displayString(rel))
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return invalid("path %q leads outside the watched folder", displayString(rel))
	}
	return nil
}

// displayString makes a path showable: invalid UTF-8 becomes U+FFFD.
func displayString(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

// splitRel returns the directory and base name of rel ("" for the root).
func splitRel(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

// joinRel joins a directory ("" for the root) and a name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
