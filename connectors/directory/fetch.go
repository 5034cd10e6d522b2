package directory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/scouts-hq/scouts/scouts"
)

// FetchMetadata reads the file of a ref again for its card, for refs that
// did not come with metadata from a scan.
func (c *Connector) FetchMetadata(ctx context.Context, ref string) (scouts.ItemMetadata, error) {
	rel, f, info, err := c.openRef(ref)
	if err != nil {
		return scouts.ItemMetadata{}, err
	}
	defer f.Close()
	head := make([]byte, min(info.Size(), headBytes))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return scouts.ItemMetadata{}, fmt.Errorf("directory: read %s: %w", c.display(rel), pathReason{err})
	}
	name := displayString(path.Base(rel))
	x := extract(name, info.Size(), head[:n])
	kind := proposedKind(name, x.text, c.cfg.NoteExtensions)
	return scouts.ItemMetadata{
		Title:        x.title,
		Excerpt:      x.excerpt,
		Path:         c.display(rel),
		ProposedKind: kind,
		Reason:       c.reason("File", rel, x, kind),
		ReceivedAt:   info.ModTime(),
		Facts:        &scouts.ItemFacts{Size: info.Size(), Text: x.body},
		// The learner reads the path inside the scout's folder (the
		// folders above it say nothing about the person's choices)
		// and the file's first text, transiently.
		Evidence: &scouts.Evidence{Path: displayString(rel), Body: x.body},
	}, nil
}

// FetchContent returns the file's current content, up to 1 MiB: the
// latest version even when the ref names an earlier one, since that is
// what the user will find in the folder.
func (c *Connector) FetchContent(ctx context.Context, ref string) (scouts.ItemContent, error) {
	rel, f, _, err := c.openRef(ref)
	if err != nil {
		return scouts.ItemContent{}, err
	}
	defer f.Close()
	// One byte more than the limit tells whether the file goes on.
	data, err := io.ReadAll(io.LimitReader(f, maxContentBytes+1))
	if err != nil {
		return scouts.ItemContent{}, fmt.Errorf("directory: read %s: %w", c.display(rel), pathReason{err})
	}
	truncated := len(data) > maxContentBytes
	data = data[:min(len(data), maxContentBytes)]
	x := extracted{markdown: isMarkdownName(rel), text: isText(data, truncated)}
	if !x.text {
		return scouts.ItemContent{ContentType: x.contentType(), Truncated: truncated}, nil
	}
	if truncated {
		data = trimPartialRune(data)
	}
	return scouts.ItemContent{Text: string(data), ContentType: x.contentType(), Truncated: truncated}, nil
}

// openRef opens the regular file a ref names, under the root only, never
// through a symbolic link. A file that has gone is a *scouts.SkipError.
func (c *Connector) openRef(ref string) (string, *os.File, fs.FileInfo, error) {
	rel, _, err := ParseRef(ref)
	if err != nil {
		return "", nil, nil, invalid("%v", err)
	}
	if err := checkRel(rel); err != nil {
		return "", nil, nil, err
	}
	info, err := c.lstatChain(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, nil, scouts.Skip(fmt.Sprintf("File %s no longer exists", c.display(rel)))
	case errors.Is(err, errThroughLink):
		return "", nil, nil, scouts.Skip(fmt.Sprintf("File %s is no longer there: a folder on its path was replaced by a link or a file", c.display(rel)))
	case err != nil:
		return "", nil, nil, fmt.Errorf("directory: stat %s: %w", c.display(rel), pathReason{err})
	case !info.Mode().IsRegular():
		return "", nil, nil, scouts.Skip(fmt.Sprintf("%s is no longer a regular file", c.display(rel)))
	}
	dir, _ := splitRel(rel)
	d, err := c.openDir(dir, nil)
	if err != nil {
		return "", nil, nil, fmt.Errorf("directory: open %s: %w", c.display(dir), pathReason{err})
	}
	defer d.Close()
	f, err := c.openIn(d, info)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, nil, scouts.Skip(fmt.Sprintf("File %s no longer exists", c.display(rel)))
	case errors.Is(err, fs.ErrPermission):
		return "", nil, nil, scouts.Skip(fmt.Sprintf("File %s cannot be read: permission denied", c.display(rel)))
	case err != nil:
		return "", nil, nil, fmt.Errorf("directory: open %s: %w", c.display(rel), pathReason{err})
	}
	return rel, f, info, nil
}

// pathReason is an error shown beside the path it concerns: only its
// reason is printed, because a *fs.PathError repeats the raw name, which
// may not be valid UTF-8 and would reach the card and the audit trail as
// is. errors.Is and As still see the error.
type pathReason struct{ err error }

func (r pathReason) Error() string { return errText(r.err) }
func (r pathReason) Unwrap() error { return r.err }
