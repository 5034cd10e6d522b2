package localapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// editDraftRoutes serve changing a scout in plain words
// (docs/definitions.md, "Changing a scout in words"): a draft of the
// change, then saving it, two calls — the person saves, never the model.
func (s *Server) editDraftRoutes() {
	s.mux.HandleFunc("POST /api/v1/scouts/{id}/edit-draft", s.handleEditDraft)
	s.mux.HandleFunc("POST /api/v1/scouts/{id}/edit-draft/save", s.handleSaveEditDraft)
}

// POST /api/v1/scouts/{id}/edit-draft {"describe": "..."}: the model gets
// the scout's current definition and the words, and proposes the changed
// definition, checked like a new draft, with its diff and the risks it
// adds. Nothing is saved. Without a model or with the budget spent: 503.
func (s *Server) handleEditDraft(w http.ResponseWriter, r *http.Request) {
	var in apitype.EditDraftRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	// The history records a change made outside a definition first: the
	// newest version is the definition as it is now.
	list, err := s.core.Definitions().History(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(list) == 0 {
		s.fail(w, r, scouts.Errorf(scouts.ENotFound, "scout %s has no definition", id))
		return
	}
	rev, err := s.core.Drafts().Revise(r.Context(), list[0].Document, in.Describe)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, editDraftOut(id, strings.TrimSpace(in.Describe), list[0].Version, rev))
}

// POST /api/v1/scouts/{id}/edit-draft/save {"base_version", "definition",
// "describe"}: the reviewed definition (as proposed, or edited) is checked
// again as a change of the scout and saved as a new version noted
// "changed in words: …" — only if base_version is still current (409
// otherwise: nothing saved).
func (s *Server) handleSaveEditDraft(w http.ResponseWriter, r *http.Request) {
	var in apitype.SaveEditDraft
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.BaseVersion < 1 || len(in.Definition) == 0 {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "want base_version (the version the change was drafted from) and definition"))
		return
	}
	id := r.PathValue("id")
	list, err := s.core.Definitions().History(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// The definition is checked against the version it was drafted from:
	// if that is not current any more, saving refuses it below.
	var base []byte
	for _, v := range list {
		if v.Version == in.BaseVersion {
			base = v.Document
		}
	}
	if base == nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "scout %s has no version %d", id, in.BaseVersion))
		return
	}
	rev := s.core.Drafts().CheckRevision(r.Context(), base, in.Definition)
	if !rev.Valid {
		msg := "the change is not a valid definition of this scout"
		if len(rev.Errors) > 0 {
			msg += ": " + rev.Errors[0].Error()
		}
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": scouts.EInvalid, "error": msg, "definition_errors": rev.Errors})
		return
	}
	doc, err := definition.Parse("change", rev.Proposed)
	if err != nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "%v", err))
		return
	}
	ch, err := s.core.Definitions().SaveRevision(r.Context(), id, in.BaseVersion, doc, clientName(r), changeNote(in.Describe))
	if err != nil {
		var de *definition.Error
		if errors.As(err, &de) {
			err = scouts.Errorf(scouts.EInvalid, "%v", de)
		}
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ch)
}

// changeNote is the note of a version changed in words: the words, cut
// to a line a history can show.
func changeNote(describe string) string {
	describe = strings.Join(strings.Fields(describe), " ")
	if describe == "" {
		return "changed in words"
	}
	const max = 120
	if utf8.RuneCountInString(describe) > max {
		describe = string([]rune(describe)[:max-1]) + "…"
	}
	return fmt.Sprintf("changed in words: %q", describe)
}

func editDraftOut(id, describe string, base int, rev defdraft.Revision) apitype.EditDraft {
	out := apitype.EditDraft{ScoutID: id, Describe: describe, BaseVersion: base, Current: rev.Current, Proposed: rev.Proposed,
		Valid: rev.Valid, Summary: rev.Summary, Risks: wireRisks(rev.Risks), RisksAdded: wireRisks(rev.RisksAdded),
		Diff: make([]apitype.DiffLine, 0, len(rev.Diff)), Tokens: rev.Tokens}
	for _, e := range rev.Errors {
		out.Errors = append(out.Errors, apitype.DefinitionError{File: e.File, Line: e.Line, Reason: e.Reason})
	}
	for _, l := range rev.Diff {
		out.Diff = append(out.Diff, apitype.DiffLine{Op: l.Op, Text: l.Text})
	}
	return out
}

func wireRisks(rs []defdraft.Risk) []apitype.DraftRisk {
	out := make([]apitype.DraftRisk, 0, len(rs))
	for _, r := range rs {
		out = append(out, apitype.DraftRisk{Code: r.Code, Message: r.Message})
	}
	return out
}
