package directory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Config is a folder scout's configuration, stored as the scout's
// Config JSON.
type Config struct {
	// Path is the absolute path of the watched root.
	Path string `json:"path"`
	// Include holds globs a file must match to become an item; empty
	// means every file.
	Include []string `json:"include,omitempty"`
	// Exclude holds globs of files and directories to ignore, in addition
	// to DefaultExcludes.
	Exclude []string `json:"exclude,omitempty"`
	// IncludeExisting makes the first scan suggest the files already in
	// the folder; without it they are recorded silently (the baseline).
	IncludeExisting bool `json:"include_existing,omitempty"`
	// NoteExtensions lists the extensions of text files proposed as notes;
	// nil means DefaultNoteExtensions.
	NoteExtensions []string `json:"note_extensions,omitempty"`
	// RescanInterval is how often the whole tree is rescanned, catching
	// what filesystem events missed. Zero means DefaultRescanInterval.
	RescanInterval Duration `json:"rescan_interval,omitempty"`
	// Settle is the quiet period that debounces event bursts and the age a
	// file's modification time must reach before it is read, so that a
	// half-written file is not suggested. Zero means DefaultSettle.
	Settle Duration `json:"settle,omitempty"`
}

// Defaults for the zero values of Config.
const (
	DefaultRescanInterval = 5 * time.Minute
	DefaultSettle         = 250 * time.Millisecond
)

// Bounds that keep a misconfigured scout from spinning or from never
// reporting anything.
const (
	minRescanInterval = time.Second
	maxSettle         = 10 * time.Minute
)

// DefaultNoteExtensions are the extensions of text files proposed as notes.
var DefaultNoteExtensions = []string{".md", ".markdown", ".txt", ".text", ".org", ".rst", ".adoc"}

// DefaultExcludes are always excluded: hidden files and directories, and
// the temporary files editors, office suites and browsers leave while they
// work.
var DefaultExcludes = []string{
	".*",           // hidden: .git, .DS_Store, .~lock.x#, and so on
	"*~",           // editor backups
	"*.swp",        // vim swap files
	"*.swo",        // vim swap files
	"#*#",          // emacs autosave
	"~$*",          // Microsoft Office lock files
	"*.tmp",        // generic temporary files
	"*.temp",       // generic temporary files
	"*.part",       // Firefox and other downloaders
	"*.partial",    // other downloaders
	"*.crdownload", // Chrome
	"*.download",   // Safari
	"Thumbs.db",    // Windows thumbnail cache
	"desktop.ini",  // Windows folder settings
}

// Duration is a time.Duration written in JSON as a string such as "5m" or
// "250ms".
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration in quotes such as \"5m\" or \"250ms\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (try \"5m\" or \"250ms\")", s)
	}
	*d = Duration(v)
	return nil
}

// ParseConfig reads and validates a folder scout's configuration. Unknown
// fields are rejected so that a typo does not silently widen what the scout
// reads. Errors are *scouts.Error with code EInvalid.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, invalid("folder scout settings are not valid: %s", describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Config{}, invalid("folder scout settings are not valid: unexpected data after the settings object")
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func describeJSONError(err error) string {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown setting " + f + " (known: path, include, exclude, include_existing, note_extensions, rescan_interval, settle)"
	}
	if errors.Is(err, io.EOF) {
		return "they are empty"
	}
	return strings.TrimPrefix(msg, "json: ")
}

// validate checks c, cleans its path and normalises its extensions.
func (c *Config) validate() error {
	if c.Path == "" {
		return invalid("choose the folder to watch (path is empty)")
	}
	if !filepath.IsAbs(c.Path) {
		return invalid("folder path %q must be absolute, for example %s", c.Path, filepath.Join(string(filepath.Separator)+"home", "you", "Scouts", "Inbox"))
	}
	c.Path = filepath.Clean(c.Path)
	fi, err := os.Stat(c.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return invalid("folder %s does not exist; create it or choose another", c.Path)
	case errors.Is(err, os.ErrPermission):
		return invalid("folder %s cannot be opened: permission denied", c.Path)
	case err != nil:
		return invalid("folder %s cannot be opened: %v", c.Path, err)
	case !fi.IsDir():
		return invalid("%s is a file, not a folder; choose the folder that contains it", c.Path)
	}
	if _, err := compileGlobs(c.Include); err != nil {
		return invalid("include: %v", err)
	}
	if _, err := compileGlobs(c.Exclude); err != nil {
		return invalid("exclude: %v", err)
	}
	if c.NoteExtensions != nil {
		// A copy: the caller's slice is not ours to rewrite.
		c.NoteExtensions = append([]string{}, c.NoteExtensions...)
	}
	for i, e := range c.NoteExtensions {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" || e == "." || strings.ContainsAny(e, `/\`) {
			return invalid("note extension %q is not an extension such as \".md\"", c.NoteExtensions[i])
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		c.NoteExtensions[i] = e
	}
	if r := time.Duration(c.RescanInterval); r != 0 && r < minRescanInterval {
		return invalid("rescan_interval %s is too short; use at least %s", r, minRescanInterval)
	}
	if s := time.Duration(c.Settle); s < 0 || s > maxSettle {
		return invalid("settle %s must be between 0 and %s", s, maxSettle)
	}
	return nil
}

// withDefaults fills the zero values.
func (c Config) withDefaults() Config {
	if c.NoteExtensions == nil {
		c.NoteExtensions = DefaultNoteExtensions
	}
	if c.RescanInterval == 0 {
		c.RescanInterval = Duration(DefaultRescanInterval)
	}
	if c.Settle == 0 {
		c.Settle = Duration(DefaultSettle)
	}
	return c
}

func invalid(format string, args ...any) error {
	return scouts.Errorf(scouts.EInvalid, format, args...)
}
