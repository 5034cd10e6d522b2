package localclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/scouts-hq/scouts/app/apitype"
)

// EditDraft asks the agent's model to change a scout as describe says:
// the proposed definition checked, its diff and the risks it adds.
// Nothing is saved.
func (c *Client) EditDraft(ctx context.Context, scoutID, describe string) (apitype.EditDraft, error) {
	var out apitype.EditDraft
	return out, c.call(ctx, http.MethodPost, "/api/v1/scouts/"+url.PathEscape(scoutID)+"/edit-draft",
		apitype.EditDraftRequest{Describe: describe}, &out)
}

// SaveEditDraft saves a change drafted by EditDraft as a new version,
// refused (409) if the scout has changed since d was drafted.
func (c *Client) SaveEditDraft(ctx context.Context, d apitype.EditDraft) (apitype.DefinitionChange, error) {
	var out apitype.DefinitionChange
	return out, c.call(ctx, http.MethodPost, "/api/v1/scouts/"+url.PathEscape(d.ScoutID)+"/edit-draft/save",
		apitype.SaveEditDraft{BaseVersion: d.BaseVersion, Definition: d.Proposed, Describe: d.Describe}, &out)
}
