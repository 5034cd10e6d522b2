package localapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// definitionRoutes serves scouts as definitions (docs/definitions.md).
func (s *Server) definitionRoutes() {
	m := s.mux
	m.HandleFunc("GET /api/v1/schema/scout", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/schema+json")
		w.Write(definition.Schema())
	})
	m.HandleFunc("GET /api/v1/definitions", s.handleExportDefinitions)
	m.HandleFunc("POST /api/v1/definitions/import", s.handleImportDefinitions)
	m.HandleFunc("GET /api/v1/definitions/status", s.handleDefinitionsStatus)
	m.HandleFunc("POST /api/v1/definitions/draft", s.handleDraftDefinition)
	m.HandleFunc("POST /api/v1/definitions/check", s.handleCheckDefinition)
	m.HandleFunc("GET /api/v1/definitions/templates", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.core.Drafts().Templates(r.Context()))
	})
	m.HandleFunc("GET /api/v1/scouts/{id}/versions", s.handleScoutVersions)
	m.HandleFunc("GET /api/v1/scouts/{id}/versions/diff", s.handleScoutDiff)
	m.HandleFunc("POST /api/v1/scouts/{id}/versions/{version}/rollback", s.handleScoutRollback)
}

// GET /api/v1/definitions?id=A&id=B[&history=true]: the scouts'
// definitions (all when no id is given), with their past versions when
// history is asked. Never a token or a secret's value.
func (s *Server) handleExportDefinitions(w http.ResponseWriter, r *http.Request) {
	history, err := boolParam(r, "history")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	docs, err := s.core.Definitions().Export(r.Context(), r.URL.Query()["id"], defsync.ExportOptions{History: history})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if docs == nil {
		docs = []definition.Document{}
	}
	writeJSON(w, http.StatusOK, docs)
}

// POST /api/v1/definitions/import[?apply=true][&history=false]: the body
// is one definition or an array, JSON or YAML, with or without history.
// Without apply it only says what would change; history=false leaves out
// the history the definitions carry.
func (s *Server) handleImportDefinitions(w http.ResponseWriter, r *http.Request) {
	withHistory := true
	if r.URL.Query().Has("history") {
		h, err := boolParam(r, "history")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		withHistory = h
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, definition.MaxExportSize+1))
	if err != nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "read body: %v", err))
		return
	}
	docs, err := definition.ParseAll("request", body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": scouts.EInvalid, "error": err.Error(),
			"definition_errors": []error{err}})
		return
	}
	apply := r.URL.Query().Get("apply") == "true"
	changes, err := s.core.Definitions().Import(r.Context(), docs, defsync.ImportOptions{Apply: apply, Actor: clientName(r), Note: "import",
		WithoutHistory: !withHistory})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"applied": apply, "changes": changes})
}

// GET /api/v1/definitions/status: the definitions folder, the scouts its
// files manage and the files that failed, with line and reason.
func (s *Server) handleDefinitionsStatus(w http.ResponseWriter, r *http.Request) {
	managed, err := s.core.Definitions().ManagedBy(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	errs := s.core.Definitions().Errors()
	if errs == nil {
		errs = []definition.Error{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"dir": s.core.Definitions().Dir(), "managed_by": managed, "definition_errors": errs,
		"drafting": s.core.Drafts().Available()})
}

// POST /api/v1/definitions/check: the body is one definition, JSON or
// YAML; the answer checks and describes it as a draft is (valid, errors,
// summary, risks). Nothing is saved.
func (s *Server) handleCheckDefinition(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, definition.MaxSize+1))
	if err != nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "read body: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, s.core.Drafts().Check(r.Context(), body))
}

// POST /api/v1/definitions/draft {"description": "..."}: the model drafts
// a definition, checked like an import and described with its risks.
// Nothing is saved. Without a model, with the day's drafting budget spent
// or the model unreachable: 503 saying which, with the templates.
func (s *Server) handleDraftDefinition(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Description string `json:"description"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "body: want {\"description\": \"...\"}: %v", err))
		return
	}
	d, err := s.core.Drafts().Draft(r.Context(), in.Description)
	if scouts.ErrorCode(err) == scouts.EUnavailable {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"code": scouts.EUnavailable, "error": scouts.ErrorMessage(err),
			"no_model": errors.Is(err, defdraft.ErrNoModel), "templates": s.core.Drafts().Templates(r.Context())})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

type versionOut struct {
	Version   int    `json:"version"`
	CreatedAt string `json:"created_at"`
	Actor     string `json:"actor"`
	Note      string `json:"note,omitempty"`
	Document  any    `json:"document"`
}

// GET /api/v1/scouts/{id}/versions: newest first.
func (s *Server) handleScoutVersions(w http.ResponseWriter, r *http.Request) {
	list, err := s.core.Definitions().History(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]versionOut, 0, len(list))
	for _, v := range list {
		out = append(out, versionOut{Version: v.Version, CreatedAt: v.CreatedAt.Format("2006-01-02T15:04:05.000Z07:00"),
			Actor: v.Actor, Note: v.Note, Document: rawJSON(v.Document)})
	}
	writeJSON(w, http.StatusOK, out)
}

// GET /api/v1/scouts/{id}/versions/diff?from=1&to=2
func (s *Server) handleScoutDiff(w http.ResponseWriter, r *http.Request) {
	from, err1 := strconv.Atoi(r.URL.Query().Get("from"))
	to, err2 := strconv.Atoi(r.URL.Query().Get("to"))
	if err1 != nil || err2 != nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "from and to must be version numbers"))
		return
	}
	ch, err := s.core.Definitions().Diff(r.Context(), r.PathValue("id"), from, to)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if ch == nil {
		ch = []definition.Change{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"from": from, "to": to, "changes": ch})
}

// POST /api/v1/scouts/{id}/versions/{version}/rollback: the version
// becomes the definition again, as a new version.
func (s *Server) handleScoutRollback(w http.ResponseWriter, r *http.Request) {
	v, err := strconv.Atoi(strings.TrimPrefix(r.PathValue("version"), "v"))
	if err != nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "version must be a number"))
		return
	}
	ch, err := s.core.Definitions().Rollback(r.Context(), r.PathValue("id"), v, clientName(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ch)
}

// clientName is who makes a change, as a definition's version records
// it: the client named by X-Scouts-Client, else "api" (a script).
func clientName(r *http.Request) string {
	switch c := r.Header.Get("X-Scouts-Client"); c {
	case "cli", "window", "browser", "tray":
		return c
	}
	return "api"
}

// withClient makes the changes a request causes record who made them;
// ?write_file=true asks that a change to a scout a definitions file
// manages be written to its file (else it is refused, 409).
func withClient(r *http.Request) *http.Request {
	ctx := defsync.WithActor(r.Context(), clientName(r))
	if r.URL.Query().Get("write_file") == "true" {
		ctx = defsync.WithWriteFile(ctx)
	}
	return r.WithContext(ctx)
}

// boolParam reads a true/false query parameter (absent: false).
func boolParam(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, scouts.Errorf(scouts.EInvalid, "%s must be true or false, not %q", name, v)
	}
}

type rawJSON []byte

func (j rawJSON) MarshalJSON() ([]byte, error) { return j, nil }
