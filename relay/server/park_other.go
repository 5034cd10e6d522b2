//go:build !linux

package server

// parker parks idle sessions in an epoll set on Linux; elsewhere each
// idle session waits in its own goroutine.
type parker struct{}

func newParker() *parker { return &parker{} }

func (p *parker) park(*session) bool { return false }

func (p *parker) forget(*session) bool { return false }

func (p *parker) count() int { return 0 }
