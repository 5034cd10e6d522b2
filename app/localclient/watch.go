package localclient

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Watcher reads the agent's live event stream.
type Watcher struct {
	body   io.ReadCloser
	r      *bufio.Reader
	lastID int64
}

// Watch opens the event stream. With lastID > 0 it resumes after that
// event. The first event is always "hello" (its data is the status).
func (c *Client) Watch(ctx context.Context, lastID int64) (*Watcher, error) {
	req, err := c.newRequest(ctx, "GET", "/api/v1/stream", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		return nil, fmt.Errorf("localclient: stream answered %s, not an event stream", ct)
	}
	return &Watcher{body: resp.Body, r: bufio.NewReaderSize(resp.Body, 64<<10), lastID: lastID}, nil
}

// Next blocks until the next event. It returns an error when the stream
// ends (agent stopped, context done); reconnect with LastID to resume.
func (w *Watcher) Next() (apitype.StreamEvent, error) {
	var ev apitype.StreamEvent
	var data strings.Builder
	for {
		line, err := w.r.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return ev, fmt.Errorf("localclient: stream: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if ev.Type == "" && data.Len() == 0 {
				continue // a heartbeat comment's terminator
			}
			ev.Data = []byte(data.String())
			if ev.ID > 0 {
				w.lastID = ev.ID
			}
			return ev, nil
		case strings.HasPrefix(line, ":"):
			// comment (heartbeat)
		case strings.HasPrefix(line, "id: "):
			ev.ID, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(line[6:])
		}
	}
}

// LastID is the id of the last event read, for resuming.
func (w *Watcher) LastID() int64 { return w.lastID }

// Close ends the stream.
func (w *Watcher) Close() error { return w.body.Close() }
