package server

import "sync"

// hub knows the sessions connected to this relay instance, by user, so
// that a commit for a user wakes exactly that user's sessions, and a
// revocation finds its device's session.
type hub struct {
	mu     sync.Mutex
	byUser map[string]map[*session]struct{}
	wg     sync.WaitGroup
}

func newHub() *hub { return &hub{byUser: map[string]map[*session]struct{}{}} }

func (h *hub) add(s *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.byUser[s.dev.UserID]
	if m == nil {
		m = map[*session]struct{}{}
		h.byUser[s.dev.UserID] = m
	}
	m[s] = struct{}{}
}

func (h *hub) remove(s *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if m := h.byUser[s.dev.UserID]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(h.byUser, s.dev.UserID)
		}
	}
}

// Wake wakes the sessions of a user: rows were queued or expired
// (service.Sessions).
func (h *hub) Wake(userID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.byUser[userID] {
		s.poke()
	}
}

// WakeAll wakes every session (after a lost LISTEN connection, when
// notifications may have been missed).
func (h *hub) WakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.byUser {
		for s := range m {
			s.poke()
		}
	}
}

// revoke closes the sessions of a device; it reports whether there was one.
func (h *hub) revoke(deviceID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	found := false
	for _, m := range h.byUser {
		for s := range m {
			if s.dev.ID == deviceID {
				s.kill(closeRevoked, "this device was revoked")
				found = true
			}
		}
	}
	return found
}

// closeAll ends every session (shutdown): desktops reconnect, to another
// instance if there is one.
func (h *hub) closeAll(code int, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.byUser {
		for s := range m {
			s.kill(code, reason)
		}
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.byUser {
		n += len(m)
	}
	return n
}

// send hands a frame to every session of a user without waiting: a
// session whose queue is full misses it (such frames are hints, re-derived
// on reconnection).
func (h *hub) send(userID string, b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.byUser[userID] {
		s.offer(b)
	}
}
