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

// Rules: a scout's rules (docs/rules.md). Rule documents are sent as
// written: the agent checks them and says what is wrong and where.

// RulesSchema returns the rule grammar's JSON Schema; with a scout kind,
// the variant naming that kind's fields.
func (c *Client) RulesSchema(ctx context.Context, kind string) (json.RawMessage, error) {
	path := "/api/v1/schema/rules"
	if kind != "" {
		path += "?kind=" + url.QueryEscape(kind)
	}
	var out json.RawMessage
	err := c.call(ctx, http.MethodGet, path, nil, &out)
	return out, err
}

func rulesPath(scoutID string) string { return "/api/v1/scouts/" + url.PathEscape(scoutID) + "/rules" }

// Rules lists a scout's rules in the order they are tried.
func (c *Client) Rules(ctx context.Context, scoutID string) (apitype.RuleList, error) {
	var out apitype.RuleList
	err := c.call(ctx, http.MethodGet, rulesPath(scoutID), nil, &out)
	return out, err
}

// AddRule adds a rule document to a scout's rules, last or (position ≥ 0)
// at position.
func (c *Client) AddRule(ctx context.Context, scoutID string, doc []byte, position int) (apitype.Rule, error) {
	path := rulesPath(scoutID)
	if position >= 0 {
		path += "?position=" + strconv.Itoa(position)
	}
	var out apitype.Rule
	err := c.callRaw(ctx, http.MethodPost, path, doc, &out)
	return out, err
}

// UpdateRule replaces a rule's document.
func (c *Client) UpdateRule(ctx context.Context, scoutID, ruleID string, doc []byte) (apitype.Rule, error) {
	var out apitype.Rule
	err := c.callRaw(ctx, http.MethodPut, rulesPath(scoutID)+"/"+url.PathEscape(ruleID), doc, &out)
	return out, err
}

// SetRuleEnabled switches a rule on or off.
func (c *Client) SetRuleEnabled(ctx context.Context, scoutID, ruleID string, on bool) (apitype.Rule, error) {
	var out apitype.Rule
	err := c.call(ctx, http.MethodPatch, rulesPath(scoutID)+"/"+url.PathEscape(ruleID), apitype.RuleEnabled{Enabled: on}, &out)
	return out, err
}

// DeleteRule deletes a rule.
func (c *Client) DeleteRule(ctx context.Context, scoutID, ruleID string) error {
	return c.call(ctx, http.MethodDelete, rulesPath(scoutID)+"/"+url.PathEscape(ruleID), nil, nil)
}

// ReorderRules puts a scout's rules in the order of ids (each once).
func (c *Client) ReorderRules(ctx context.Context, scoutID string, ids []string) (apitype.RuleList, error) {
	var out apitype.RuleList
	err := c.call(ctx, http.MethodPost, rulesPath(scoutID)+"/reorder", apitype.RuleOrder{IDs: ids}, &out)
	return out, err
}

// PreviewRule says what a rule document would have done to the scout's
// latest items.
func (c *Client) PreviewRule(ctx context.Context, scoutID string, doc []byte) (apitype.RulePreview, error) {
	var out apitype.RulePreview
	err := c.callRaw(ctx, http.MethodPost, rulesPath(scoutID)+"/preview", doc, &out)
	return out, err
}

// callRaw sends body as it is (a document the agent checks itself) and
// decodes the JSON answer into out.
func (c *Client) callRaw(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := c.newRequest(ctx, method, path, nil)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
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
