package protocol_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var t0 = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// golden lists one frame of every type. The files in testdata/ are the
// contract: a change that alters one of them breaks deployed peers.
var golden = []struct {
	file string
	typ  string
	id   string
	seq  int64
	data any // a pointer to the wire struct
}{
	{"hello.json", protocol.TypeHello, "", 0, &protocol.Hello{Token: "dev_4f2a", Protocol: 1, LastAckedSeq: 41, PublicKey: bytes.Repeat([]byte{7}, 32), Client: "scouts/v0.1.0"}},
	{"welcome.json", protocol.TypeWelcome, "", 0, &protocol.Welcome{DeviceID: "dv_01", UserEmail: "ann@example.com", Protocol: 1, ResumeAfter: 41, Window: 64, HeartbeatSeconds: 10, ServerTime: t0}},
	{"scout_proposal.json", protocol.TypeProposal, "", 42, &protocol.Proposal{ID: "rq_01", ScoutID: "sc_01", SourceType: "webhook", SourceRef: "rq_01", Verdict: "relevant", Reason: "webhook item", TriagedAt: t0, ExpiresAt: t0.Add(30 * 24 * time.Hour), Sealed: []byte("sealed-bytes")}},
	{"scout_proposal_gmail.json", protocol.TypeProposal, "", 43, &protocol.Proposal{ID: "rq_02", ScoutID: "sc_02", SourceType: "gmail", SourceRef: "18c2f0a9b1", Verdict: "relevant", Reason: "from a known sender", Category: "unprocessed", TriagedAt: t0, ExpiresAt: t0.Add(30 * 24 * time.Hour), Subject: "Invoice 42", Sender: "Bob <bob@example.com>", Snippet: "Please find attached"}},
	{"scout_proposal_ack.json", protocol.TypeProposalAck, "", 0, &protocol.ProposalAck{Seqs: []int64{42, 43}}},
	{"scout_proposal_expired.json", protocol.TypeProposalExpired, "", 44, &protocol.ProposalExpired{ID: "rq_03", ScoutID: "sc_01", SourceType: "webhook", SourceRef: "rq_03", ExpiredAt: t0}},
	{"ping.json", protocol.TypePing, "", 0, &protocol.Ping{T: 1763803800000}},
	{"pong.json", protocol.TypePong, "", 0, &protocol.Pong{T: 1763803800000}},
	{"scout_status.json", protocol.TypeScoutStatus, "", 0, &protocol.ScoutStatus{ScoutID: "sc_02", State: protocol.ScoutAuthExpired, Message: "Gmail access expired — reconnect", Action: "reconnect", At: t0}},
	{"mailbox_changed.json", protocol.TypeMailboxChanged, "", 0, &protocol.MailboxChanged{ScoutID: "sc_02", Email: "ann@example.com", HistoryID: "987654"}},
	{"error.json", protocol.TypeError, "", 0, &protocol.Error{Code: protocol.CodeDeviceRevoked, Message: "this device was revoked", Fatal: true}},
	{"scout_register.json", protocol.TypeScoutRegister, "op_01", 0, &protocol.ScoutConfig{ScoutID: "sc_01", Kind: "webhook", Name: "CI alerts", Enabled: true, HookTokenHash: strings.Repeat("ab", 32)}},
	{"scout_register_gmail.json", protocol.TypeScoutRegister, "op_05", 0, &protocol.ScoutConfig{ScoutID: "sc_02", Kind: "gmail", Name: "Work mail", Enabled: true, Email: "ann@example.com", Mode: protocol.ModeRelayTriage, RefreshToken: "1//refresh", Rules: []protocol.TriageRule{{ID: "shops", Action: "deny", Domains: []string{"shop.example"}}}, BaselineHistoryID: "987600", CreatedAt: t0, ModelDayTokens: 50000, ModelRunTokens: 5000}},
	{"scout_update.json", protocol.TypeScoutUpdate, "op_02", 0, &protocol.ScoutConfig{ScoutID: "sc_01", Kind: "webhook", Name: "CI alerts (prod)", Enabled: true}},
	{"scout_disable.json", protocol.TypeScoutDisable, "op_03", 0, &protocol.ScoutDisable{ScoutID: "sc_01"}},
	{"config_result.json", protocol.TypeConfigResult, "op_01", 0, &protocol.ConfigResult{OK: true, ScoutID: "sc_01", HookURL: "https://relay.example.com/api/v1/hooks/sc_01"}},
	{"config_result_error.json", protocol.TypeConfigResult, "op_04", 0, &protocol.ConfigResult{OK: false, ScoutID: "sc_09", Error: &protocol.Error{Code: protocol.CodeScoutForbidden, Message: "scout sc_09 belongs to another user"}}},
}

func TestGoldenFrames(t *testing.T) {
	for _, g := range golden {
		path := filepath.Join("testdata", g.file)
		enc, err := protocol.Encode(g.typ, g.id, g.seq, g.data)
		if err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, enc, "", "  ")
		pretty.WriteByte('\n')
		if *update {
			os.WriteFile(path, pretty.Bytes(), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update to create it)", g.file, err)
		}
		if !bytes.Equal(pretty.Bytes(), want) {
			t.Errorf("%s: encoding changed:\n got %s\nwant %s", g.file, pretty.Bytes(), want)
		}
		f, err := protocol.Decode(want)
		if err != nil {
			t.Fatalf("%s: %v", g.file, err)
		}
		if f.Type != g.typ || f.ID != g.id || f.Seq != g.seq {
			t.Errorf("%s: envelope %+v", g.file, f)
		}
		got := reflect.New(reflect.TypeOf(g.data).Elem()).Interface()
		if err := f.DecodeData(got); err != nil {
			t.Fatalf("%s: %v", g.file, err)
		}
		if !reflect.DeepEqual(got, g.data) {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", g.file, got, g.data)
		}
	}
}

// A newer relay may add fields and frame types; this build must still
// decode what it knows.
func TestNewerPeerStillDecodes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "future_scout_proposal.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := protocol.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var p protocol.Proposal
	if err := f.DecodeData(&p); err != nil {
		t.Fatal(err)
	}
	if p.ID != "rq_01" || p.Subject != "Invoice 42" || f.Seq != 42 {
		t.Fatalf("decoded %+v", p)
	}
}

func TestBadFramesGetCodes(t *testing.T) {
	cases := []struct {
		in   string
		code int
	}{
		{`not json`, protocol.CodeBadFrame},
		{`{"v":1}`, protocol.CodeBadFrame},
		{`{"v":2,"type":"hello"}`, protocol.CodeUnsupportedVersion},
		{`{"v":1,"type":"hello","data":"x` + strings.Repeat("y", protocol.MaxFrameBytes) + `"}`, protocol.CodeFrameTooLarge},
	}
	for _, c := range cases {
		_, err := protocol.Decode([]byte(c.in))
		pe, ok := protocol.AsError(err)
		if !ok || pe.Code != c.code {
			t.Errorf("%.40q: %v, want code %d", c.in, err, c.code)
		}
	}
	f, _ := protocol.Decode([]byte(`{"v":1,"type":"hello"}`))
	var h protocol.Hello
	if pe, ok := protocol.AsError(f.DecodeData(&h)); !ok || pe.Code != protocol.CodeBadFrame {
		t.Errorf("hello without data accepted")
	}
	f, _ = protocol.Decode([]byte(`{"v":1,"type":"scout_proposal_ack","data":{"seqs":"all"}}`))
	var a protocol.ProposalAck
	if pe, ok := protocol.AsError(f.DecodeData(&a)); !ok || pe.Code != protocol.CodeBadFrame {
		t.Errorf("ack with a string seqs accepted")
	}
}

// The protocol package must stay importable by both sides: standard
// library only.
func TestStandardLibraryOnly(t *testing.T) {
	src, err := os.ReadFile("protocol.go")
	if err != nil {
		t.Fatal(err)
	}
	imports := string(src[strings.Index(string(src), "import ("):strings.Index(string(src), ")\n")])
	for _, line := range strings.Split(imports, "\n")[1:] {
		line = strings.Trim(strings.TrimSpace(line), `"`)
		if strings.Contains(line, ".") {
			t.Errorf("protocol imports %s: it must depend on the standard library only", line)
		}
	}
}
