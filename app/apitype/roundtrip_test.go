package apitype_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// all is every type of the package; TestEveryTypeIsListed keeps it whole.
var all = []any{
	apitype.MCPServer{}, apitype.MCPTool{}, apitype.MCPDiffRow{}, apitype.AddMCPServer{}, apitype.MCPApprove{},
	apitype.MCPApproved{}, apitype.MCPTrust{},
	apitype.SearchResults{}, apitype.SearchHit{}, apitype.CalendarFeed{},
	apitype.ActionDef{}, apitype.PlanAction{}, apitype.Plan{}, apitype.ApproveAction{}, apitype.Policies{},
	apitype.ResolvedMode{}, apitype.PlanDefaults{}, apitype.PutPolicies{}, apitype.PolicyChange{}, apitype.Error{},
	apitype.Status{}, apitype.RelayStatus{}, apitype.RelayLogin{}, apitype.RelayLogout{}, apitype.Keyring{},
	apitype.Scout{}, apitype.ScoutHealth{}, apitype.CreateScout{}, apitype.PatchScout{}, apitype.Suggestion{},
	apitype.Assessment{}, apitype.Learning{}, apitype.LearnSettings{}, apitype.Approve{}, apitype.Entity{},
	apitype.EntityInput{}, apitype.AuditEvent{}, apitype.StreamEvent{}, apitype.Content{}, apitype.GmailConnect{},
	apitype.GmailConnectRequest{}, apitype.GmailConnected{}, apitype.GmailAccount{}, apitype.GmailAction{},
	apitype.Settings{}, apitype.QuietHours{}, apitype.Folders{}, apitype.FieldChange{}, apitype.DefinitionChange{},
	apitype.ImportResult{}, apitype.DefinitionError{}, apitype.DefinitionsStatus{}, apitype.ScoutVersion{},
	apitype.VersionDiff{}, apitype.Rule{}, apitype.RuleList{}, apitype.RuleField{}, apitype.RuleEnabled{},
	apitype.RuleOrder{}, apitype.RulePreview{}, apitype.RulePreviewItem{}, apitype.RuleEffect{}, apitype.RuleAction{},
	apitype.Schedule{}, apitype.Budget{}, apitype.BudgetStatus{}, apitype.SpentBudget{}, apitype.Secrets{},
	apitype.WriteScope{}, apitype.ScopeInEffect{}, apitype.ScopeList{},
	apitype.SecretValue{}, apitype.Run{}, apitype.ScreenerOffer{}, apitype.ScreenerRule{}, apitype.ScreenSender{},
	apitype.ScreenSenderResult{}, apitype.AgentProposal{}, apitype.AgentProposalResult{}, apitype.Reject{},
	apitype.MCPServe{},
	apitype.Snooze{}, apitype.Brief{}, apitype.BriefTime{}, apitype.SnoozedTask{},
	apitype.Alarm{},
	apitype.Graph{}, apitype.GraphNode{}, apitype.GraphEdge{},
	apitype.Sender{}, apitype.SenderUnsubscription{}, apitype.SenderList{}, apitype.UnsubscribeSenders{},
	apitype.UnsubscribeOutcome{}, apitype.UnsubscribeResult{},
	apitype.EditDraftRequest{}, apitype.DraftRisk{}, apitype.DiffLine{}, apitype.EditDraft{}, apitype.SaveEditDraft{},
}

// A new type in the package is listed in all, so that its wire form is
// checked too.
func TestEveryTypeIsListed(t *testing.T) {
	names, _ := shapes(t)
	var listed []string
	for _, v := range all {
		listed = append(listed, reflect.TypeOf(v).Name())
	}
	for _, n := range names {
		if !slices.Contains(listed, n) {
			t.Errorf("apitype.%s is not in all (roundtrip_test.go)", n)
		}
	}
}

// at is the time every example carries: UTC, with milliseconds, as the
// agent sends times.
var at = time.Date(2026, 11, 2, 10, 0, 0, 123_000_000, time.UTC)

// fill sets every field of v (a pointer) to a value of its own, reached
// through pointers, slices and maps: each string its field's name, so that
// the example shows which key carries which field.
func fill(v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), name)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(at))
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fill(v.Field(i), f.Name)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage{}) {
			v.Set(reflect.ValueOf(json.RawMessage(`{"` + strings.ToLower(name) + `":1}`)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), name)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, name+"Key")
		fill(e, name)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString(name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Interface:
		v.Set(reflect.ValueOf(name))
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

// Every type, filled and empty, encodes as testdata/examples.golden.json
// says — its keys, what omitempty leaves out, times as RFC 3339 in UTC —
// and a filled one decodes back to itself: what the agent sends is what
// the CLI and the tests read.
func TestExamplesRoundTrip(t *testing.T) {
	examples := map[string]map[string]json.RawMessage{}
	for _, v := range all {
		typ := reflect.TypeOf(v)
		full := reflect.New(typ)
		fill(full.Elem(), typ.Name())
		b, err := json.Marshal(full.Interface())
		if err != nil {
			t.Fatalf("%s: %v", typ.Name(), err)
		}
		back := reflect.New(typ)
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Fatalf("%s: decode %s: %v", typ.Name(), b, err)
		}
		if !reflect.DeepEqual(back.Elem().Interface(), full.Elem().Interface()) {
			t.Errorf("%s does not decode to itself:\n%s\nback: %+v", typ.Name(), b, back.Elem().Interface())
		}
		zero, err := json.Marshal(reflect.New(typ).Interface())
		if err != nil {
			t.Fatal(err)
		}
		examples[typ.Name()] = map[string]json.RawMessage{"filled": b, "empty": zero}
	}
	got, err := json.MarshalIndent(examples, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "examples.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the API types' JSON changed (go test -update to accept it, then update frontend/src/api):\n%s", lineDiff(string(want), string(got)))
	}
	if !bytes.Contains(got, []byte(`"2026-11-02T10:00:00.123Z"`)) {
		t.Error("times are not sent as RFC 3339 in UTC")
	}
}
