package protocol_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/relay/protocol"
)

// dataOf makes the wire struct a frame type carries, nil for types this
// build does not know (a peer skips those).
func dataOf(typ string) any {
	switch typ {
	case protocol.TypeHello:
		return new(protocol.Hello)
	case protocol.TypeWelcome:
		return new(protocol.Welcome)
	case protocol.TypeProposal:
		return new(protocol.Proposal)
	case protocol.TypeProposalAck:
		return new(protocol.ProposalAck)
	case protocol.TypeProposalExpired:
		return new(protocol.ProposalExpired)
	case protocol.TypePing, protocol.TypePong:
		return new(protocol.Ping)
	case protocol.TypeScoutStatus:
		return new(protocol.ScoutStatus)
	case protocol.TypeMailboxChanged:
		return new(protocol.MailboxChanged)
	case protocol.TypeError:
		return new(protocol.Error)
	case protocol.TypeScoutRegister, protocol.TypeScoutUpdate:
		return new(protocol.ScoutConfig)
	case protocol.TypeScoutDisable:
		return new(protocol.ScoutDisable)
	case protocol.TypeConfigResult:
		return new(protocol.ConfigResult)
	}
	return nil
}

// FuzzDecode feeds frames as a peer could send them. Decoding never
// panics; a refused frame carries a protocol error code and a message;
// what decodes re-encodes, decodes again, and the second encoding is the
// first byte for byte (a frame relayed or stored and read back does not
// drift). Seeds: every golden frame, the newer peer's frame, bad frames.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("golden frames: %v (%d files)", err, len(files))
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`not json`, `{"v":1}`, `{"v":2,"type":"hello"}`, `{"v":1,"type":"hello"}`, `{"v":1,"type":"hello","data":null}`,
		`{"v":1,"type":"scout_proposal_ack","data":{"seqs":"all"}}`, `{"v":1,"type":"ping","data":{"t":1e3}}`,
		`{"v":1,"type":"welcome","data":{"server_time":"2026-11-22T09:30:00.123456789+05:30"}}`,
		`{"v":1,"type":"hello","data":{"public_key":"AAEC\r\nAw=="}}`,
		`{"v":1,"type":"scout_register","id":"op","data":{"scout_id":"s","name":"\ud800\u00e9\xff","created_at":"0001-01-01T00:00:00Z"}}`,
		`{"v":1,"type":"config_result","data":{"ok":false,"error":null}}`,
		`{"V":1,"TYPE":"pong","Seq":-1,"data":{"T":-9223372036854775808}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := protocol.Decode(b)
		if err != nil {
			pe, ok := protocol.AsError(err)
			if !ok || pe.Message == "" {
				t.Fatalf("Decode error %v is not a protocol error with a message", err)
			}
			switch pe.Code {
			case protocol.CodeBadFrame, protocol.CodeFrameTooLarge, protocol.CodeUnsupportedVersion:
			default:
				t.Fatalf("Decode error %v has code %d", err, pe.Code)
			}
			return
		}
		if fr.Type == "" || fr.V != protocol.Version {
			t.Fatalf("Decode accepted a frame without a type or of version %d: %q", fr.V, b)
		}

		// The envelope: decode ∘ encode ∘ decode is stable.
		e1, err := json.Marshal(fr)
		if err != nil {
			t.Fatalf("a decoded frame does not encode: %v", err)
		}
		fr2, err := protocol.Decode(e1)
		if err != nil {
			t.Fatalf("a re-encoded frame does not decode: %v\n%s", err, e1)
		}
		if fr2.Type != fr.Type || fr2.ID != fr.ID || fr2.Seq != fr.Seq {
			t.Fatalf("envelope changed: %+v then %+v", fr, fr2)
		}
		if e2, _ := json.Marshal(fr2); !bytes.Equal(e1, e2) {
			t.Fatalf("envelope drifts:\n%s\n%s", e1, e2)
		}

		// The data, for the types this build knows.
		v := dataOf(fr.Type)
		if v == nil {
			return
		}
		if err := fr.DecodeData(v); err != nil {
			if pe, ok := protocol.AsError(err); !ok || pe.Code != protocol.CodeBadFrame || pe.Message == "" {
				t.Fatalf("DecodeData error %v is not a bad-frame protocol error with a message", err)
			}
			return
		}
		d1, err := protocol.Encode(fr.Type, fr.ID, fr.Seq, v)
		if err != nil {
			t.Fatalf("decoded %s data does not encode: %v", fr.Type, err)
		}
		g, err := protocol.Decode(d1)
		if err != nil {
			t.Fatalf("re-encoded %s frame does not decode: %v\n%s", fr.Type, err, d1)
		}
		v2 := dataOf(g.Type)
		if err := g.DecodeData(v2); err != nil {
			t.Fatalf("re-encoded %s data does not decode: %v\n%s", fr.Type, err, d1)
		}
		d2, err := protocol.Encode(g.Type, g.ID, g.Seq, v2)
		if err != nil || !bytes.Equal(d1, d2) {
			t.Fatalf("%s data drifts (%v):\n%s\n%s", fr.Type, err, d1, d2)
		}
	})
}
