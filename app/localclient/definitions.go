package localclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Definitions: scouts as versioned documents (docs/definitions.md).

// ScoutSchema returns the definition format's JSON Schema.
func (c *Client) ScoutSchema(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.call(ctx, http.MethodGet, "/api/v1/schema/scout", nil, &out)
}

// ExportDefinitions returns the definitions of the scouts named, every
// scout when none is, one JSON document each; with history, each carries
// its past versions.
func (c *Client) ExportDefinitions(ctx context.Context, history bool, ids ...string) ([]json.RawMessage, error) {
	v := url.Values{}
	for _, id := range ids {
		v.Add("id", id)
	}
	if history {
		v.Set("history", "true")
	}
	path := "/api/v1/definitions"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out []json.RawMessage
	return out, c.call(ctx, http.MethodGet, path, nil, &out)
}

// ImportOptions say how definitions are imported.
type ImportOptions struct {
	// Apply makes the changes; without it the agent only says what they
	// would be.
	Apply bool
	// WithoutHistory leaves out the history the definitions carry.
	WithoutHistory bool
}

// ImportDefinitions sends one definition or an array of them, JSON or
// YAML, as written.
func (c *Client) ImportDefinitions(ctx context.Context, doc []byte, o ImportOptions) (apitype.ImportResult, error) {
	v := url.Values{}
	if o.Apply {
		v.Set("apply", "true")
	}
	if o.WithoutHistory {
		v.Set("history", "false")
	}
	path := "/api/v1/definitions/import"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out apitype.ImportResult
	return out, c.sendDocument(ctx, http.MethodPost, path, doc, &out)
}

// DefinitionsStatus returns the definitions folder, the scouts its files
// manage and the files that failed.
func (c *Client) DefinitionsStatus(ctx context.Context) (apitype.DefinitionsStatus, error) {
	var out apitype.DefinitionsStatus
	return out, c.call(ctx, http.MethodGet, "/api/v1/definitions/status", nil, &out)
}

func versionsPath(scoutID string) string {
	return "/api/v1/scouts/" + url.PathEscape(scoutID) + "/versions"
}

// ScoutVersions returns a scout's definition versions, newest first.
func (c *Client) ScoutVersions(ctx context.Context, scoutID string) ([]apitype.ScoutVersion, error) {
	var out []apitype.ScoutVersion
	return out, c.call(ctx, http.MethodGet, versionsPath(scoutID), nil, &out)
}

// DiffScoutVersions says what changed from version from to version to.
func (c *Client) DiffScoutVersions(ctx context.Context, scoutID string, from, to int) (apitype.VersionDiff, error) {
	var out apitype.VersionDiff
	path := fmt.Sprintf("%s/diff?from=%d&to=%d", versionsPath(scoutID), from, to)
	return out, c.call(ctx, http.MethodGet, path, nil, &out)
}

// RollbackScout makes an earlier version the scout's definition again, as
// a new version.
func (c *Client) RollbackScout(ctx context.Context, scoutID string, version int) (apitype.DefinitionChange, error) {
	var out apitype.DefinitionChange
	path := versionsPath(scoutID) + "/" + strconv.Itoa(version) + "/rollback"
	return out, c.call(ctx, http.MethodPost, path, nil, &out)
}

// sendDocument posts a document's bytes unchanged (YAML stays YAML, so the
// agent's line numbers match the file).
func (c *Client) sendDocument(ctx context.Context, method, path string, doc []byte, out any) error {
	req, err := c.newRequest(ctx, method, path, nil)
	if err != nil {
		return err
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(doc)), int64(len(doc))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("localclient: decode %s %s: %w", method, path, err)
	}
	return nil
}
