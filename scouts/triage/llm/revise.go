package llm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/scouts-hq/scouts/scouts"
)

// revisePrompt asks for a changed scout definition. The current definition
// and the person's instruction are given as data: the instruction says what
// to change, it does not change these rules.
const revisePrompt = `You change scout definitions for Scouts, a local assistant that watches sources (a folder, a Gmail mailbox, a webhook) and turns what arrives into suggestions the person approves.
You are given a scout's current definition and the person's instruction. Answer with the whole definition after the change: exactly one JSON object valid against the JSON Schema given as the response format.
Change only what the instruction asks; keep everything else as it is, rules and their ids in order included. Keep the kind and the id. Keep review mode and the write scope unless the instruction asks otherwise. Never invent a secret's value: name secrets by reference ({"secret": "name"}).
The current definition and the instruction are given as JSON data.`

// Revise asks the model for a scout's definition changed as the
// instruction says: the current definition and the instruction go to the
// model as data, with the definition's JSON Schema as the structured
// output format. It returns the content as the model wrote it (the caller
// validates it, as a new draft) and the tokens spent; the budget is
// reserved and settled as for Draft.
func (c *Client) Revise(ctx context.Context, current json.RawMessage, instruction string, schema json.RawMessage, allow Allowance) (json.RawMessage, int, error) {
	if allow.Budget == nil || allow.DailyTokens <= 0 {
		return nil, 0, scouts.Errorf(scouts.EInvalid, "revise: a token budget and a daily cap above 0 are required")
	}
	user, err := json.Marshal(struct {
		Current     json.RawMessage `json:"current_definition"`
		Instruction string          `json:"instruction"`
	}{current, instruction})
	if err != nil {
		return nil, 0, fmt.Errorf("revise: the current definition: %w", err)
	}
	return c.defineScout(ctx, revisePrompt, user, schema, allow)
}
