package cue

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/olebedev/when"
)

// TestParserMatchesLibrary: the local parser gives, with the same rules,
// what the library's own Parser gives, for every labelled phrase and every
// line of the sample mail, read whole and from each offset findDates reads
// from.
func TestParserMatchesLibrary(t *testing.T) {
	ours := dateParser()
	lib := when.New(&ours.opts)
	lib.Add(ours.rules...)
	texts := []string{"", "nothing here", "next week", "on 14/12 at 10:00", "the 3rd, then tomorrow at noon"}
	for _, p := range loadPhrases(t) {
		texts = append(texts, p.text)
	}
	mail, err := os.ReadFile("testdata/mail2k.txt")
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, strings.Split(string(mail), "\n")...)
	base := time.Date(2026, 11, 26, 14, 30, 37, 0, time.UTC)
	checked := 0
	for _, text := range texts {
		s, _ := prepare(text)
		for off := 0; off < len(s); off++ {
			got, gotErr := ours.Parse(s[off:], base)
			want, wantErr := lib.Parse(s[off:], base)
			if (gotErr != nil) != (wantErr != nil) || (got == nil) != (want == nil) {
				t.Fatalf("%q from %d: got %+v, %v; the library %+v, %v", text, off, got, gotErr, want, wantErr)
			}
			if got != nil {
				checked++
				if got.Index != want.Index || got.Text != want.Text || !got.Time.Equal(want.Time) {
					t.Fatalf("%q from %d: got %+v; the library %+v", text, off, *got, *want)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d dates found: the comparison checks too little", checked)
	}
}
