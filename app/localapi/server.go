// Package localapi serves the agent's local API: versioned JSON over HTTP
// (/api/v1/...) plus a Server-Sent Events stream, on a Unix socket and,
// optionally, on a loopback TCP port guarded by a bearer token.
//
// The socket is protected by file permissions (0600 in a 0700 data
// directory). The TCP port is reachable by every local process and, through
// DNS rebinding, by web pages, so it demands the token and refuses requests
// whose Host or Origin is not this very listener.
package localapi

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/screener"
	"github.com/scouts-hq/scouts/scouts"
)

// maxBody bounds request bodies: the largest legitimate one is an entity
// with a 1 MiB body.
const maxBody = 2 << 20

// Server is the local API.
type Server struct {
	core  *core.Core
	log   *slog.Logger
	token string
	mux   *http.ServeMux
	ui    http.Handler
	// keyring is nil when the agent gave none (tests of the core alone).
	keyring Keyring
	// screener applies the screener's keys and finds the cards offering
	// them (screener.go).
	screener *screener.Screener
	// mcp is Scouts' MCP server over streamable HTTP (agents.go), nil
	// when the agent gave none; mcpToken its own bearer token; tcpAddr
	// the TCP listener's address, for the endpoint's URL.
	mcp      http.Handler
	mcpToken string
	tcpAddr  atomic.Value
}

// Options configure a Server.
type Options struct {
	// Token is the bearer token required on TCP listeners.
	Token  string
	Logger *slog.Logger
	// UI, when set, is the web frontend, served at / on TCP listeners so
	// that the product works in any browser (scouts agent --ui).
	UI fs.FS
	// Keyring is where the agent keeps its tokens (GET /api/v1/keyring,
	// POST /api/v1/keyring/file); nil answers those 503.
	Keyring Keyring
	// MCP is Scouts' MCP server over streamable HTTP, served at MCPPath
	// on TCP listeners when the person switched it on, to MCPToken only.
	MCP      http.Handler
	MCPToken string
}

// New returns the API server for c.
func New(c *core.Core, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{core: c, log: opts.Logger, token: opts.Token, mux: http.NewServeMux(), keyring: opts.Keyring, mcp: opts.MCP, mcpToken: opts.MCPToken}
	s.screener = newScreener(c, opts.Logger)
	s.routes()
	if opts.UI != nil {
		s.ui = newUIHandler(opts.UI)
	}
	return s
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /api/v1/status", s.handleStatus)
	s.definitionRoutes()
	s.editDraftRoutes()

	m.HandleFunc("GET /api/v1/scouts", s.handleListScouts)
	m.HandleFunc("POST /api/v1/scouts", s.handleCreateScout)
	m.HandleFunc("GET /api/v1/scouts/{id}", s.handleGetScout)
	m.HandleFunc("PATCH /api/v1/scouts/{id}", s.handlePatchScout)
	m.HandleFunc("DELETE /api/v1/scouts/{id}", s.handleDeleteScout)
	m.HandleFunc("POST /api/v1/scouts/{id}/run", s.handleRunScout)

	m.HandleFunc("GET /api/v1/suggestions", s.handleListSuggestions)
	m.HandleFunc("GET /api/v1/suggestions/{id}", s.handleGetSuggestion)
	m.HandleFunc("POST /api/v1/suggestions/{id}/approve", s.handleApprove)
	m.HandleFunc("POST /api/v1/suggestions/{id}/reject", s.handleReject)
	m.HandleFunc("POST /api/v1/suggestions/{id}/undo", s.handleUndo)
	m.HandleFunc("POST /api/v1/suggestions/{id}/spam", s.handleMarkSpam)
	m.HandleFunc("POST /api/v1/suggestions/{id}/bring-back", s.handleBringBack)
	m.HandleFunc("POST /api/v1/suggestions/{id}/screen", s.handleScreen)
	m.HandleFunc("POST /api/v1/suggestions/{id}/snooze", s.handleSnooze)
	m.HandleFunc("POST /api/v1/suggestions/{id}/unsnooze", s.handleUnsnooze)
	m.HandleFunc("POST /api/v1/tasks/{id}/snooze", s.handleSnoozeTask)
	m.HandleFunc("GET /api/v1/brief", s.handleBrief)
	m.HandleFunc("PUT /api/v1/brief/time", s.handleBriefTime)
	m.HandleFunc("POST /api/v1/suggestions/{id}/screen-sender", s.handleScreenSender)
	m.HandleFunc("GET /api/v1/scouts/{id}/learning", s.handleGetLearning)
	m.HandleFunc("PUT /api/v1/scouts/{id}/learning", s.handlePutLearning)
	m.HandleFunc("POST /api/v1/scouts/{id}/learning/reset", s.handleResetLearning)
	m.HandleFunc("GET /api/v1/suggestions/{id}/content", s.handleContent)

	m.HandleFunc("POST /api/v1/pause", s.handlePause(true))
	m.HandleFunc("POST /api/v1/resume", s.handlePause(false))
	m.HandleFunc("POST /api/v1/sync", s.handleSync)
	m.HandleFunc("GET /api/v1/settings", s.handleGetSettings)
	m.HandleFunc("PUT /api/v1/settings", s.handlePutSettings)
	m.HandleFunc("GET /api/v1/relay", s.handleGetRelay)
	m.HandleFunc("PUT /api/v1/relay", s.handlePutRelay)
	m.HandleFunc("DELETE /api/v1/relay", s.handleDeleteRelay)

	for _, k := range scouts.EntityKinds {
		base := "/api/v1/" + string(k) + "s"
		m.HandleFunc("GET "+base, s.entityHandler(k, s.handleListEntities))
		m.HandleFunc("POST "+base, s.entityHandler(k, s.handleCreateEntity))
		m.HandleFunc("GET "+base+"/{id}", s.entityHandler(k, s.handleGetEntity))
		m.HandleFunc("PATCH "+base+"/{id}", s.entityHandler(k, s.handlePatchEntity))
		m.HandleFunc("DELETE "+base+"/{id}", s.entityHandler(k, s.handleDeleteEntity))
	}

	m.HandleFunc("GET /api/v1/audit", s.handleAudit)
	m.HandleFunc("GET /api/v1/folders", s.handleFolders)
	m.HandleFunc("POST /api/v1/gmail/connect", s.handleGmailConnect)
	m.HandleFunc("GET /api/v1/gmail/accounts", s.handleGmailAccounts)
	m.HandleFunc("DELETE /api/v1/gmail/accounts/{email}", s.handleGmailDisconnect)
	m.HandleFunc("GET /api/v1/stream", s.handleStream)
	s.ruleRoutes(m)
	s.keyringRoutes(m)
	s.runRoutes(m)
	s.actionRoutes(m)
	s.alarmRoutes(m)
	s.graphRoutes(m)
	s.mcpServerRoutes(m)
	s.searchRoutes(m)
	s.calendarRoutes(m)
	s.agentRoutes(m)
	s.senderRoutes(m)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
}

// SocketHandler serves the API on the Unix socket.
func (s *Server) SocketHandler() http.Handler {
	return s.logged("socket", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Nothing legitimate on the socket is a browser: a request that
		// carries an Origin was forwarded from a web page.
		if r.Header.Get("Origin") != "" {
			writeError(w, http.StatusForbidden, "forbidden", "requests from web pages are not accepted on the agent socket")
			return
		}
		s.mux.ServeHTTP(w, r)
	}))
}

// TCPHandler serves the API on a loopback TCP listener bound to addr.
func (s *Server) TCPHandler(addr net.Addr) http.Handler {
	port := ""
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
		s.tcpAddr.Store(ta)
	}
	allowed := map[string]bool{
		"127.0.0.1:" + port: true,
		"localhost:" + port: true,
		"[::1]:" + port:     true,
	}
	return s.logged("tcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// DNS rebinding: a page on evil.example can make its name resolve
		// to 127.0.0.1, but it cannot make the browser send our Host.
		if !allowed[strings.ToLower(r.Host)] {
			writeError(w, http.StatusForbidden, "forbidden", "host "+strconv.Quote(r.Host)+" is not this agent")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !allowed[strings.ToLower(strings.TrimPrefix(o, "http://"))] {
			writeError(w, http.StatusForbidden, "forbidden", "origin "+strconv.Quote(o)+" may not call the agent")
			return
		}
		if r.URL.Path == MCPPath {
			s.serveMCP(w, r)
			return
		}
		if s.ui != nil && !strings.HasPrefix(r.URL.Path, "/api/") {
			s.serveUI(w, r)
			return
		}
		// The calendar feed checks a token of its own (calendar.go).
		if !s.authorized(r) && !isCalendarFeed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="scouts"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token (see local-api.token in the data directory)")
			return
		}
		s.mux.ServeHTTP(w, r)
	}))
}

// authorized accepts the token as a bearer header (scripts, the CLI over
// TCP) or as the cookie the UI sets (browsers: EventSource cannot send
// headers).
func (s *Server) authorized(r *http.Request) bool {
	if s.token == "" {
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		c, err := r.Cookie(tokenCookie)
		if err != nil {
			return false
		}
		got = c.Value
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// statusWriter records the status for the request log. It passes Flush
// through so that the stream works behind it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) logged(via string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		r = withClient(r)
		h.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		level := slog.LevelDebug
		if sw.status >= 500 {
			level = slog.LevelError
		} else if r.Method != http.MethodGet || sw.status >= 400 {
			level = slog.LevelInfo
		}
		s.log.Log(r.Context(), level, "api request", "via", via, "method", r.Method, "path", r.URL.Path,
			"status", sw.status, "ms", time.Since(start).Milliseconds(), "agent", r.UserAgent(),
			"client", r.Header.Get("X-Scouts-Client"))
	})
}

// writeJSON writes v with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, apitype.Error{Code: code, Error: msg})
}

// fail turns a domain error into an HTTP answer: this is the only place
// where error codes meet status codes.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := scouts.ErrorCode(err)
	status := map[string]int{
		scouts.EInvalid:     http.StatusBadRequest,
		scouts.ENotFound:    http.StatusNotFound,
		scouts.EConflict:    http.StatusConflict,
		scouts.EUnavailable: http.StatusServiceUnavailable,
	}[code]
	if status == 0 {
		status = http.StatusInternalServerError
		s.log.Error("api internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, status, code, scouts.ErrorMessage(err))
}

// decode reads a JSON body strictly: unknown fields are mistakes worth
// reporting, not ignoring.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return scouts.Errorf(scouts.EInvalid, "request body is larger than %d bytes", maxBody)
		}
		return scouts.Errorf(scouts.EInvalid, "request body is not valid JSON for this endpoint: %v", err)
	}
	if dec.More() {
		return scouts.Errorf(scouts.EInvalid, "request body has data after the JSON value")
	}
	return nil
}
