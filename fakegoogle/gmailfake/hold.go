package gmailfake

// Hold makes calls of the named methods ("messages.modify",
// "messages.get", …) wait at the door until release is called: they are
// neither answered nor counted in Calls until then, and Waiting says how
// many are at the door. A test uses it to see what a client does before
// Gmail has answered anything (an approval answering before its archive
// reaches Gmail). Release is idempotent; holding a method already held
// adds nothing.
func (s *Server) Hold(methods ...string) (release func()) {
	gate := make(chan struct{})
	s.mu.Lock()
	if s.holds == nil {
		s.holds = map[string]chan struct{}{}
	}
	var mine []string
	for _, m := range methods {
		if _, ok := s.holds[m]; !ok {
			s.holds[m] = gate
			mine = append(mine, m)
		}
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, m := range mine {
			if s.holds[m] == gate {
				delete(s.holds, m)
			}
		}
		select {
		case <-gate:
		default:
			close(gate)
		}
	}
}

// Waiting counts the calls of method held at the door now (Hold).
func (s *Server) Waiting(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting[method]
}

// door holds a call of method while it is held; false when the caller
// gave up waiting.
func (s *Server) door(method string, done <-chan struct{}) bool {
	s.mu.Lock()
	gate := s.holds[method]
	if gate == nil {
		s.mu.Unlock()
		return true
	}
	if s.waiting == nil {
		s.waiting = map[string]int{}
	}
	s.waiting[method]++
	s.mu.Unlock()
	s.changed.Fire() // a test waits on the call reaching the door
	defer func() {
		s.mu.Lock()
		s.waiting[method]--
		s.mu.Unlock()
	}()
	select {
	case <-gate:
		return true
	case <-done:
		return false
	}
}
