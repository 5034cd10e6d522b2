package server

import "time"

// workers runs device frames' work (decoding, database calls) on a few
// goroutines, so that the sessions' own long-lived goroutines never grow
// the stacks that SQLite calls and JSON decoding need, and keep them while
// idle. Workers start on demand, up to a bound, and leave after a while
// without work.
type workers struct {
	jobs chan func()   // unbuffered: a send succeeds when a worker is free
	slot chan struct{} // one token per running worker
	idle time.Duration
}

func newWorkers(n int, idle time.Duration) *workers {
	return &workers{jobs: make(chan func()), slot: make(chan struct{}, n), idle: idle}
}

// do runs fn on a worker and returns when it is done.
func (w *workers) do(fn func()) {
	done := make(chan struct{})
	job := func() {
		defer close(done)
		fn()
	}
	select {
	case w.jobs <- job:
	default:
		select {
		case w.jobs <- job:
		case w.slot <- struct{}{}:
			go w.run(job)
		}
	}
	<-done
}

func (w *workers) run(job func()) {
	defer func() { <-w.slot }()
	t := time.NewTimer(w.idle)
	defer t.Stop()
	for {
		job()
		t.Reset(w.idle)
		select {
		case job = <-w.jobs:
		case <-t.C:
			return
		}
	}
}
