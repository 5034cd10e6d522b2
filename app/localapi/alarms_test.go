package localapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/apitype"
)

// An alarm is announced on the stream in its API form, listed, counted in
// the status while open, acknowledged (then no longer counted, still
// listed), and an unknown one is not found.
func TestAlarmsListedAcknowledgedAndStreamed(t *testing.T) {
	srv, c := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := openStream(t, ctx, srv, "")
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Scan() // the hello's id line: the stream is open

	raised, err := c.AlarmService().Raise(ctx, alarms.Alarm{Key: "test:one", Kind: alarms.KindDefinitions,
		Message: "mail.yaml does not read: fix it"})
	if err != nil {
		t.Fatal(err)
	}
	var streamed apitype.Alarm
	for typ := ""; streamed.ID == "" && sc.Scan(); {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			typ = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && typ == alarms.EventRaised {
			if err := json.Unmarshal([]byte(v), &streamed); err != nil {
				t.Fatal(err)
			}
		}
	}
	if streamed.ID != raised.ID || streamed.DedupeKey != "test:one" || streamed.Status != "open" || streamed.Severity != "warning" {
		t.Fatalf("streamed %+v", streamed)
	}

	var list []apitype.Alarm
	code, _, body := call(t, srv, "GET", "/api/v1/alarms", "")
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil || len(list) != 1 || list[0].Message != raised.Message {
		t.Fatalf("list: %d %s", code, body)
	}
	var st apitype.Status
	_, _, body = call(t, srv, "GET", "/api/v1/status", "")
	if json.Unmarshal(body, &st); st.Alarms != 1 {
		t.Fatalf("status counts %d alarms, want 1", st.Alarms)
	}
	var acked apitype.Alarm
	code, _, body = call(t, srv, "POST", "/api/v1/alarms/"+raised.ID+"/ack", "")
	if err := json.Unmarshal(body, &acked); code != http.StatusOK || err != nil || acked.Status != "acknowledged" || acked.AcknowledgedAt == nil {
		t.Fatalf("ack: %d %s", code, body)
	}
	_, _, body = call(t, srv, "GET", "/api/v1/status", "")
	if json.Unmarshal(body, &st); st.Alarms != 0 {
		t.Fatalf("status counts %d alarms after the acknowledgement, want 0", st.Alarms)
	}
	_, _, body = call(t, srv, "GET", "/api/v1/alarms", "")
	if json.Unmarshal(body, &list); len(list) != 1 || list[0].Status != "acknowledged" {
		t.Fatalf("list after ack: %s", body)
	}
	if code, e, _ := call(t, srv, "POST", "/api/v1/alarms/al_missing/ack", ""); code != http.StatusNotFound {
		t.Fatalf("ack of an unknown alarm: %d %+v", code, e)
	}
	if err := c.AlarmService().Resolve(ctx, "test:one", "fixed"); err != nil {
		t.Fatal(err)
	}
	_, _, body = call(t, srv, "GET", "/api/v1/alarms", "")
	if json.Unmarshal(body, &list); len(list) != 0 {
		t.Fatalf("live after resolving: %s", body)
	}
	_, _, body = call(t, srv, "GET", "/api/v1/alarms?all=1", "")
	if json.Unmarshal(body, &list); len(list) != 1 || list[0].Status != "resolved" || list[0].ResolvedAt == nil {
		t.Fatalf("all after resolving: %s", body)
	}
}
