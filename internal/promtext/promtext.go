// Package promtext reads a /metrics page in Prometheus' text format, for
// the tests and benchmarks that check what a relay counts.
package promtext

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Get reads the samples of the /metrics page at url: each sample's name
// with its labels, as the page writes it
// (`scouts_relay_webhook_requests_total{result="accepted"}`), to its value.
func Get(url string) (map[string]float64, error) {
	res, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("promtext: GET %s: %s", url, res.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// The value is the last field: label values may hold spaces.
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("promtext: %s: a sample without a value: %q", url, line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("promtext: %s: %q: %w", url, line, err)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("promtext: read %s: %w", url, err)
	}
	return out, nil
}
