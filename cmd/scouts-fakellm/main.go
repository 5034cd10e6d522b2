// Command scouts-fakellm serves the fake OpenAI-compatible model of the Go
// tests (scouts/triage/triagetest) as a process, for the browser
// end-to-end tests and local runs of `scouts agent --llm-url`. Its first
// line on stdout is "listening on http://ADDR/v1" (the API root to give
// --llm-url), its second "admin on http://ADDR": an unauthenticated admin
// API for tests, on its own listener (see admin below). Both listen on
// loopback only.
//
//	scouts-fakellm --key fake-key --model fake-model
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scouts-fakellm:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scouts-fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	key := fs.String("key", "fake-key", "the API key the fake accepts (empty: none required)")
	model := fs.String("model", "fake-model", "the model name it serves")
	adminAddr := fs.String("admin-listen", "127.0.0.1:0", "address of the admin API")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	srv := triagetest.New(*key, *model)
	defer srv.Close()
	ln, err := net.Listen("tcp", *adminAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *adminAddr, err)
	}
	// Tests read these two lines to find the ports; they come first.
	fmt.Fprintf(stdout, "listening on %s\nadmin on http://%s\n", srv.BaseURL(), ln.Addr())
	hs := &http.Server{Handler: admin(srv), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// admin is the test API:
//
//	POST /script   ["answer 1", "answer 2"]: the contents of the coming
//	               answers, in order (beyond them the fake answers
//	               verdicts, as in the Go tests)
//	GET  /requests {"count": N}: the model requests received so far
func admin(srv *triagetest.Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /script", func(w http.ResponseWriter, r *http.Request) {
		var contents []string
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&contents); err != nil {
			http.Error(w, "want a JSON array of strings: "+err.Error(), http.StatusBadRequest)
			return
		}
		turns := make([]triagetest.Turn, len(contents))
		for i, c := range contents {
			turns[i] = triagetest.Turn{Content: c}
		}
		srv.Script(turns...)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /requests", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]int{"count": len(srv.Requests())})
	})
	return mux
}
