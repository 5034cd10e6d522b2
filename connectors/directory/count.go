package directory

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// CountFiles counts the files a scout with cfg would consider (included,
// not excluded, outside Scouts' own folders and pseudo-filesystems),
// stopping at limit: a result equal to limit means "limit or more". It is
// cheap enough to run when a scout is created: directory listings only, one
// lstat per folder, no file opened.
func CountFiles(ctx context.Context, cfg Config, protected []string, limit int) (int, error) {
	c, err := open(Options{Config: cfg, Protected: protected})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	top, err := c.root().Stat(".")
	if err != nil {
		return 0, fmt.Errorf("directory: count files in %s: %w", c.rootPath, err)
	}
	prot := newGuard(c.protected)
	rootDev, _ := devOf(top)
	type dirOn struct {
		rel string
		dev uint64
	}
	stack := []dirOn{{"", rootDev}}
	n := 0
	for len(stack) > 0 && n < limit {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := c.root().Open(osRel(d.rel))
		if err != nil {
			continue // unreadable: the scan reports it
		}
		for n < limit {
			ents, rerr := f.ReadDir(readDirChunk)
			for _, e := range ents {
				sub := joinRel(d.rel, e.Name())
				switch {
				case e.Type().IsRegular():
					if !c.excluded(sub, false) && c.included(sub) {
						n++
					}
				case e.IsDir():
					if c.excluded(sub, true) {
						continue
					}
					fi, err := e.Info()
					if err != nil || prot.protects(e.Name(), fi) || c.systemMount(sub, fi, d.dev) {
						continue
					}
					dev, _ := devOf(fi)
					stack = append(stack, dirOn{sub, dev})
				}
			}
			if rerr != nil || len(ents) == 0 {
				if rerr != nil && !errors.Is(rerr, io.EOF) {
					c.log.Debug("count files", "dir", c.display(d.rel), "err", rerr)
				}
				break
			}
		}
		f.Close()
	}
	return min(n, limit), nil
}
