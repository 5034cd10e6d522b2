// Package mailtext turns mail as it arrives (RFC 822/5322 bytes, MIME) into
// what triage reads: a triage.Message with a handful of headers, and the
// plain text of the body.
//
// It is lenient on purpose. Real mail, and spam above all, breaks the
// standards in every way (header lines without colons, undeclared or
// misspelt charsets, missing MIME boundaries, base64 with junk in it); a
// parser that gives up would hand the decision to whoever writes the
// worst mail. So the functions here return an error only when there is
// nothing like a mail at all, and otherwise do their best, with bounds on
// depth, number of parts and bytes processed so that no input can make them
// expensive.
//
// Only the fields listed in triage.Message are kept. The headers that mail
// collectors, relays and filters add (Received, Delivered-To, X-Spam-*,
// X-Keywords, Status, …) are never read, so nothing downstream can learn
// from them.
package mailtext
