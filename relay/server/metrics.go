package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/scouts-hq/scouts/relay/service"
)

// metrics are the relay's Prometheus metrics, on a registry of its own
// (no process-global state).
type metrics struct {
	reg          *prometheus.Registry
	connections  prometheus.Gauge
	deliveries   prometheus.Counter
	acks         prometheus.Counter
	pushToAck    prometheus.Histogram
	hookRequests *prometheus.CounterVec
	frames       *prometheus.CounterVec
	pushes       *prometheus.CounterVec
	connsRefused *prometheus.CounterVec
}

func newMetrics(svc *service.Service, parked func() int) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		connections: prometheus.NewGauge(prometheus.GaugeOpts{Name: "scouts_relay_connections",
			Help: "Device WebSocket sessions open on this instance."}),
		deliveries: prometheus.NewCounter(prometheus.CounterOpts{Name: "scouts_relay_deliveries_total",
			Help: "Proposals (and expiry notices) sent to devices."}),
		acks: prometheus.NewCounter(prometheus.CounterOpts{Name: "scouts_relay_acks_total",
			Help: "Proposals acknowledged by devices."}),
		pushToAck: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "scouts_relay_push_to_ack_seconds",
			Help:    "Time from an item being queued to a device acknowledging it.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 12)}),
		hookRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scouts_relay_webhook_requests_total",
			Help: "Webhook requests by result."}, []string{"result"}),
		frames: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scouts_relay_frames_received_total",
			Help: "Frames received from devices, by type."}, []string{"type"}),
		pushes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scouts_relay_gmail_pushes_total",
			Help: "Gmail push notifications by result (accepted, refused, malformed, failed)."}, []string{"result"}),
		connsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "scouts_relay_connections_turned_away_total",
			Help: "Connections over a cap: over_cap (answered 503), per_address and no_room (closed at once)."}, []string{"reason"}),
	}
	m.reg.MustRegister(m.connections, m.deliveries, m.acks, m.pushToAck, m.hookRequests, m.frames, m.pushes, m.connsRefused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		queueDepth{svc: svc},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "scouts_relay_sessions_parked",
			Help: "Idle device sessions waiting without a goroutine of their own."}, func() float64 { return float64(parked()) }))
	return m
}

// queueDepth reads the queue's size by status at scrape time.
type queueDepth struct{ svc *service.Service }

var queueDepthDesc = prometheus.NewDesc("scouts_relay_queue_rows", "Queue rows by status.", []string{"status"}, nil)

func (q queueDepth) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepthDesc }

func (q queueDepth) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	depth, err := q.svc.QueueDepth(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
		return
	}
	for status, n := range depth {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(n), status)
	}
}
