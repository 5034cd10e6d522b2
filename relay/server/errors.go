package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/service"
)

// The one place where the service's refusals become the transport's
// codes: an HTTP status with a code word (which the answer and the
// metrics carry), or a protocol error code with, for a refused session,
// the WebSocket close code.

// httpRefusal is how a refusal reads over HTTP. A request body over the
// limit the transport set (http.MaxBytesReader) is refused here too.
func httpRefusal(err error) (status int, code, msg string) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body is larger than %d KiB", mbe.Limit>>10)
	}
	e := service.AsError(err)
	switch e.Code {
	case service.Malformed, service.Invalid:
		return http.StatusBadRequest, "invalid", e.Message
	case service.Unauthorized:
		return http.StatusUnauthorized, "unauthorized", e.Message
	case service.Revoked, service.Forbidden:
		return http.StatusForbidden, "forbidden", e.Message
	case service.Disabled:
		// Gone: the scout may be enabled again, but until then no
		// retry will be taken.
		return http.StatusGone, "disabled", e.Message
	case service.NoDevice, service.DevicesRevoked:
		// Conflict either way: the request is fine, the account cannot
		// take it in its present state, and it can again once a device
		// connects.
		return http.StatusConflict, string(e.Code), e.Message
	case service.NotFound:
		return http.StatusNotFound, "not_found", e.Message
	case service.Unavailable:
		return http.StatusServiceUnavailable, "unavailable", e.Message
	}
	return http.StatusInternalServerError, "internal", "internal error"
}

// wsRefusal is how a refusal reads on a device's session: the error a
// frame is answered with, and the close code if it refuses the session
// itself (a hello).
func wsRefusal(e *service.Error) (protocol.Error, websocket.StatusCode) {
	pe := protocol.Error{Message: e.Message}
	switch e.Code {
	case service.Malformed:
		pe.Code = protocol.CodeBadFrame
		return pe, websocket.StatusPolicyViolation
	case service.Invalid:
		pe.Code = protocol.CodeInvalidConfig
		return pe, websocket.StatusPolicyViolation
	case service.Unauthorized:
		pe.Code = protocol.CodeUnauthorized
		return pe, closeUnauthorized
	case service.Revoked:
		pe.Code = protocol.CodeDeviceRevoked
		return pe, closeRevoked
	case service.Forbidden:
		pe.Code = protocol.CodeScoutForbidden
		return pe, websocket.StatusPolicyViolation
	case service.NotFound:
		pe.Code = protocol.CodeScoutNotFound
		return pe, websocket.StatusPolicyViolation
	}
	pe.Code = protocol.CodeInternal
	if pe.Message == "" {
		pe.Message = "internal error"
	}
	return pe, websocket.StatusInternalError
}
