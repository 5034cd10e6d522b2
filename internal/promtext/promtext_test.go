package promtext_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/internal/promtext"
)

func serve(t *testing.T, page string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A sample is found by its name with its labels as the page writes them,
// label values with spaces included; comments are no samples.
func TestGetReadsSamplesWithTheirLabels(t *testing.T) {
	url := serve(t, `# HELP scouts_relay_acks_total Acks.
# TYPE scouts_relay_acks_total counter
scouts_relay_acks_total 42
scouts_relay_webhook_requests_total{result="accepted"} 3
scouts_relay_refused_total{reason="too many devices"} 1.5e+06
`)
	m, err := promtext.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"scouts_relay_acks_total":                                42,
		`scouts_relay_webhook_requests_total{result="accepted"}`: 3,
		`scouts_relay_refused_total{reason="too many devices"}`:  1.5e6,
	}
	if len(m) != len(want) {
		t.Errorf("samples %v; want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v; want %v", k, m[k], v)
		}
	}
}

// A value that is not a number is an error naming the line, not a zero.
func TestGetRefusesAValueThatIsNoNumber(t *testing.T) {
	url := serve(t, "scouts_relay_acks_total forty-two\n")
	_, err := promtext.Get(url)
	if err == nil || !strings.Contains(err.Error(), "forty-two") {
		t.Fatalf("Get = %v; want an error naming the line", err)
	}
}
