package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
)

// draftPrompt asks for a scout definition. The person's description is
// given as data: it says what they want, it does not change the rules.
const draftPrompt = `You write scout definitions for Scouts, a local assistant that watches sources (a folder, a Gmail mailbox, a webhook) and turns what arrives into suggestions the person approves.
Write exactly one definition, a JSON object valid against the JSON Schema given as the response format, for the scout the person describes.
Prefer review mode (review: true) and no actions that run without approval unless the person asks for them. Never invent a secret's value: name secrets by reference ({"secret": "name"}).
The person's description is given as JSON data.`

// DraftMaxTokens caps a draft's answer: a definition with a few rules.
const DraftMaxTokens = 2000

// Draft asks the model for a scout definition described in plain words,
// with the definition's JSON Schema as the structured output format. It
// returns the content as the model wrote it (the caller validates it) and
// the tokens the call spent. The call reserves its worst case (every byte
// of the body a token, the chat template's overhead and the completion
// cap) from the allowance first, as categorisation does, and settles with
// the usage reported (the worst case when none was; nothing when the call
// failed without usage). Over budget it returns ErrBudgetSpent, unasked.
func (c *Client) Draft(ctx context.Context, description string, schema json.RawMessage, allow Allowance) (json.RawMessage, int, error) {
	if allow.Budget == nil || allow.DailyTokens <= 0 {
		return nil, 0, scouts.Errorf(scouts.EInvalid, "draft: a token budget and a daily cap above 0 are required")
	}
	user, _ := json.Marshal(map[string]string{"description": description})
	return c.defineScout(ctx, draftPrompt, user, schema, allow)
}

// defineScout asks the model, with prompt and the user message user, for
// a scout definition in the structured output format schema, within the
// allowance: the worst case (every byte of the body a token, the chat
// template's overhead and the completion cap) is reserved first and
// settled with the usage reported (the worst case when none was). Draft
// and Revise differ only in what they ask.
func (c *Client) defineScout(ctx context.Context, prompt string, user []byte, schema json.RawMessage, allow Allowance) (json.RawMessage, int, error) {
	req := request{
		Model: c.cfg.Model,
		Messages: []message{
			{Role: "system", Content: text(prompt)},
			{Role: "user", Content: text(string(user))},
		},
		MaxTokens: DraftMaxTokens,
		// Not strict: the scout schema uses keywords (oneOf, patterns)
		// strict mode refuses; the answer is validated on arrival.
		ResponseFormat: responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: "scout_definition", Schema: schema}},
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, 0, c.fail(err)
	}
	worst := len(body) + perMessageOverhead*len(req.Messages) + req.MaxTokens
	res, ok, err := allow.Budget.Reserve(ctx, allow.Scout, allow.DailyTokens, worst)
	if err != nil {
		return nil, 0, fmt.Errorf("token budget: %w", err)
	}
	if !ok {
		return nil, 0, ErrBudgetSpent
	}
	raw, tokens, err := c.draft(ctx, body)
	if err == nil && tokens <= 0 {
		tokens = worst
	}
	// A failed Commit leaves the whole reservation counted, the safe side.
	_ = allow.Budget.Commit(ctx, res, tokens)
	return raw, tokens, err
}

// draft posts a draft request and reads the definition from the answer.
func (c *Client) draft(ctx context.Context, body []byte) (json.RawMessage, int, error) {
	raw, err := c.post(ctx, body)
	if err != nil {
		return nil, 0, c.fail(err)
	}
	r, err := parseReply(raw, ErrBadAnswer)
	if err == nil && r.content == nil {
		err = fmt.Errorf("%w: no content", ErrBadAnswer)
	}
	if err != nil {
		return nil, r.tokens, c.fail(err)
	}
	return json.RawMessage(stripFence(strings.TrimSpace(*r.content))), r.tokens, nil
}
