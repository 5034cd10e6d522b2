package client

import (
	"context"
	"errors"

	"github.com/coder/websocket"
)

// Identity is who the relay says a device token belongs to.
type Identity struct {
	DeviceID  string
	UserEmail string
}

// Probe checks a relay URL and device token the way a session starts
// (hello, then welcome or a refusal) and hangs up at once, so that a
// desktop can refuse a wrong token before saving it. It resumes after
// sequence 0, which acknowledges nothing on the relay: rows it is sent
// in the meantime stay unacknowledged and reach the real session.
func Probe(ctx context.Context, url, token, clientName string) (Identity, error) {
	c, err := New(Config{URL: url, Token: token, ClientName: clientName})
	if err != nil {
		return Identity{}, err
	}
	conn, welcome, err := c.dial(ctx, 0)
	if err != nil {
		return Identity{}, err
	}
	conn.Close(websocket.StatusNormalClosure, "token checked")
	return Identity{DeviceID: welcome.DeviceID, UserEmail: welcome.UserEmail}, nil
}

// Refused says whether err is the relay refusing the device for good, and
// how: StateUnauthorized (unknown token) or StateRevoked.
func Refused(err error) (state string, ok bool) {
	var stop *errStop
	if errors.As(err, &stop) {
		return stop.state, true
	}
	return "", false
}
