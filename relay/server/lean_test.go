package server_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/server"
)

// maskedFrame is a client's text frame (clients mask theirs).
func maskedFrame(payload []byte) []byte {
	b := []byte{0x81}
	switch n := len(payload); {
	case n < 126:
		b = append(b, 0x80|byte(n))
	default:
		b = append(b, 0x80|126, byte(n>>8), byte(n))
	}
	key := []byte{1, 2, 3, 4}
	b = append(b, key...)
	for i, c := range payload {
		b = append(b, c^key[i%4])
	}
	return b
}

// A client may send its hello in the same packet as the upgrade request:
// the bytes the HTTP server read ahead are the session's first, not lost
// when the connection changes hands (the relay swaps the server's buffers
// for smaller ones after the upgrade).
func TestHelloSentWithTheUpgradeRequest(t *testing.T) {
	e := newEnv(t, server.Config{})
	keys, _ := client.DeviceKeys(e.token)
	hello, _ := protocol.Encode(protocol.TypeHello, "", 0, protocol.Hello{Token: e.token, Protocol: 1, PublicKey: keys.Public[:]})
	addr := strings.TrimPrefix(e.http.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "GET /api/v1/device HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := c.Write(append([]byte(req), maskedFrame(hello)...)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", res, err)
	}
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(br, hdr); err != nil {
		t.Fatal(err)
	}
	n := int(hdr[1] & 0x7f)
	if n == 126 {
		ext := make([]byte, 2)
		io.ReadFull(br, ext)
		n = int(binary.BigEndian.Uint16(ext))
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(br, payload); err != nil {
		t.Fatal(err)
	}
	f, err := protocol.Decode(payload)
	if err != nil || f.Type != protocol.TypeWelcome {
		t.Fatalf("answer to a hello sent with the upgrade: %q %v, want welcome", payload, err)
	}
}
