// Package window is the desktop window (`scouts window`): a Wails v2
// webview showing the embedded web frontend. The frontend speaks only the
// local API; this package forwards its /api/ calls to the agent over the
// agent's Unix socket, and turns the agent's event stream into Wails runtime
// events, because Wails' asset server cannot stream (its response writer is
// no http.Flusher, wails issue #2847).
//
// Only wails.go imports Wails, and only with the build tag `window` (plus
// Wails' own `production webkit2_41`); without it, Run answers
// ErrNotBuilt, so that the rest of the module builds on machines without
// GTK and WebKit. Everything else here (the proxy, the stream bridge,
// starting the agent) is plain Go and tested without a display.
package window

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// ClientName is the X-Scouts-Client the window's requests carry, so the
// audit trail says "by user (window)".
const ClientName = "window"

// NewProxy returns the handler for the window's /api/ requests: it
// forwards them to the agent listening on socketPath.
//
// The page in the webview is our own, served from the binary; what it sends
// is passed on with the headers a browser adds for web pages removed (the
// agent's socket refuses requests that carry an Origin: nothing legitimate
// on the socket is a web page — the window is the one exception, and it
// vouches for its page here).
func NewProxy(socketPath string) http.Handler {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socketPath)
		},
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = "scouts-agent"
			pr.Out.Host = "scouts-agent"
			for _, h := range []string{"Origin", "Referer", "Cookie", "Authorization"} {
				pr.Out.Header.Del(h)
			}
			pr.Out.Header.Set("X-Scouts-Client", ClientName)
		},
		Transport: tr,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeError(w, http.StatusServiceUnavailable, "unavailable",
				"the Scouts agent does not answer ("+err.Error()+"); start it with: scouts agent")
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/api/v1/stream" {
			// The asset server would buffer the stream forever.
			writeError(w, http.StatusNotImplemented, "invalid",
				"the window delivers the event stream as Wails runtime events ("+EventStream+"), not over HTTP")
			return
		}
		rp.ServeHTTP(w, r)
	})
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := jsonMarshal(apitype.Error{Code: code, Error: msg})
	w.Write(b)
}
