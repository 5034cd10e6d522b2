package mcpclient

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call's progress: each call asks the server for progress notifications
// (a token of its own), and the last one the server sent is recorded with
// the call's result, so the trail says how far a long call got. Progress
// is the server's claim: it is shown, never acted on.

// progressSeen is what a server reported of one call's progress.
type progressSeen struct {
	mu       sync.Mutex
	reports  int
	progress float64
	total    float64
	message  string
}

// progressTable holds the calls in flight by progress token.
type progressTable struct{ calls sync.Map } // token string -> *progressSeen

func (t *progressTable) start(token string) *progressSeen {
	p := &progressSeen{}
	t.calls.Store(token, p)
	return p
}

func (t *progressTable) done(token string) { t.calls.Delete(token) }

// notified records a notification; one for no call in flight (late, or a
// token the server made up) is dropped.
func (t *progressTable) notified(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := t.calls.Load(token)
	if !ok {
		return
	}
	p := v.(*progressSeen)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reports++
	p.progress, p.total = req.Params.Progress, req.Params.Total
	p.message = clip(req.Params.Message, 200)
}

// summary says the last progress reported, "" when none was.
func (p *progressSeen) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reports == 0 {
		return ""
	}
	s := strconv.FormatFloat(p.progress, 'g', -1, 64)
	if p.total > 0 {
		s += " of " + strconv.FormatFloat(p.total, 'g', -1, 64)
	}
	s = fmt.Sprintf("%s (%d reports)", s, p.reports)
	if p.message != "" {
		s += ": " + p.message
	}
	return s
}
