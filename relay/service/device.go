package service

import (
	"context"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// Admit authenticates a device's hello and records the connection: its
// public key (the first one it presents stays its key), the sealing
// format it opens, and what it says it committed.
func (s *Service) Admit(ctx context.Context, hello protocol.Hello) (relay.Device, error) {
	dev, err := s.db.DeviceByToken(ctx, hello.Token)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return dev, refuse(Unauthorized, "unknown device token")
	}
	if err != nil {
		return dev, &Error{Code: Internal, Message: "internal error", Err: err}
	}
	if dev.Revoked() {
		return dev, refuse(Revoked, "this device was revoked")
	}
	if len(hello.PublicKey) != 32 {
		return dev, refuse(Malformed, "hello needs a 32-byte X25519 public key")
	}
	seal := ""
	if slices.Contains(hello.Seal, protocol.SealBatchV1) {
		seal = protocol.SealBatchV1
	}
	if err := s.db.DeviceConnected(ctx, dev.ID, hello.PublicKey, seal); err != nil {
		if scouts.ErrorCode(err) == scouts.EConflict {
			return dev, refuse(Unauthorized, scouts.ErrorMessage(err))
		}
		return dev, &Error{Code: Internal, Message: "internal error", Err: err}
	}
	// Acks the device sent before its last connection died may never have
	// arrived: what it says it committed is acknowledged now. Up to its
	// cursor, rows are acknowledged already (acks arrive in order, and the
	// cursor moves in the same transaction): a reconnection without lost
	// acks costs no write.
	if hello.LastAckedSeq > dev.AckedSeq {
		n, err := s.db.AckThrough(ctx, dev.UserID, dev.ID, hello.LastAckedSeq)
		if err != nil {
			s.log.Error("acknowledge from hello", "device", dev.ID, "err", err)
			return dev, &Error{Code: Internal, Message: "internal error", Err: err}
		}
		if n > 0 {
			s.log.Info("acks lost with the last connection taken from hello", "device", dev.ID, "rows", n, "through", hello.LastAckedSeq)
		}
	}
	return dev, nil
}

// Connected is called once an admitted device's session can be sent
// frames: the Gmail scouts tell it how they are.
func (s *Service) Connected(ctx context.Context, dev relay.Device) {
	if s.cfg.Gmail != nil {
		s.cfg.Gmail.DeviceConnected(ctx, dev.UserID)
	}
}

// Delivery is a queue row as a device receives it: a proposal, or the
// notice that it expired.
type Delivery struct {
	Seq int64
	// QueuedAt is when the row was queued (push-to-ack metrics).
	QueuedAt time.Time
	// Type and Data are the frame's (protocol.TypeProposal or
	// TypeProposalExpired).
	Type string
	Data any
}

// Deliver hands send, one at a time and in order, up to limit of what a
// device has still to receive after the sequence after, with content
// sealed for it; it returns how many it handed. An error of send stops
// it and is returned. Each is made just before it is handed (a Gmail
// card may be fetched for it), so that the first goes out first.
func (s *Service) Deliver(ctx context.Context, dev relay.Device, after int64, limit int, send func(Delivery) error) (int, error) {
	rows, err := s.db.Pending(ctx, dev.UserID, dev.ID, after, limit)
	if err != nil {
		return 0, err
	}
	for i, row := range rows {
		if err := send(s.delivery(ctx, row)); err != nil {
			return i, err
		}
	}
	return len(rows), nil
}

func (s *Service) delivery(ctx context.Context, row relay.QueueItem) Delivery {
	d := Delivery{Seq: row.Seq, QueuedAt: row.TriagedAt}
	if row.Status == relay.StatusExpired {
		d.Type, d.Data = protocol.TypeProposalExpired, protocol.ProposalExpired{
			ID: row.ID, ScoutID: row.ScoutID, SourceType: row.SourceType, SourceRef: row.SourceRef, ExpiredAt: row.ExpiresAt}
		return d
	}
	p := protocol.Proposal{
		ID: row.ID, ScoutID: row.ScoutID, SourceType: row.SourceType, SourceRef: row.SourceRef, Verdict: row.Verdict,
		Reason: row.Reason, Path: row.Path, TriagedAt: row.TriagedAt, ExpiresAt: row.ExpiresAt, Sealed: row.Sealed}
	if s.cfg.Gmail != nil {
		// The card's subject, sender and snippet exist only in this frame.
		s.cfg.Gmail.Enrich(ctx, row, &p)
	}
	d.Type, d.Data = protocol.TypeProposal, p
	return d
}

// MaxAckSeqs bounds the sequences of one acknowledgement.
const MaxAckSeqs = 1000

// Ack records that a device committed rows of its user (by sequence).
// A refusal is Malformed; any other error is storage's.
func (s *Service) Ack(ctx context.Context, dev relay.Device, seqs []int64) error {
	if len(seqs) == 0 || len(seqs) > MaxAckSeqs {
		return refuse(Malformed, "an ack carries 1 to 1000 sequences")
	}
	return s.db.Ack(ctx, dev.UserID, dev.ID, seqs)
}

// LeftInFlight records the rows a session sent that its device never
// acknowledged: those still queued become delivered.
func (s *Service) LeftInFlight(ctx context.Context, dev relay.Device, seqs []int64) error {
	slices.Sort(seqs)
	for len(seqs) > 0 {
		n := min(len(seqs), 500)
		if err := s.db.MarkDelivered(ctx, dev.UserID, seqs[:n]); err != nil {
			return err
		}
		seqs = seqs[n:]
	}
	return nil
}
