package gmailfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The JSON shapes below are written out by hand rather than borrowed from
// google.golang.org/api/gmail/v1, so that the fake states the wire format
// (64-bit numbers as strings, field names, what is omitted) instead of
// inheriting whatever the client happens to accept.

type wireHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type wireBody struct {
	AttachmentID string `json:"attachmentId,omitempty"`
	Size         int    `json:"size"`
	Data         string `json:"data,omitempty"`
}

type wirePart struct {
	PartID   string       `json:"partId"`
	MimeType string       `json:"mimeType"`
	Filename string       `json:"filename"`
	Headers  []wireHeader `json:"headers"`
	Body     *wireBody    `json:"body,omitempty"`
	Parts    []*wirePart  `json:"parts,omitempty"`
}

type wireMessage struct {
	ID           string    `json:"id"`
	ThreadID     string    `json:"threadId"`
	LabelIDs     []string  `json:"labelIds,omitempty"`
	Snippet      string    `json:"snippet,omitempty"`
	Payload      *wirePart `json:"payload,omitempty"`
	SizeEstimate int       `json:"sizeEstimate,omitempty"`
	HistoryID    string    `json:"historyId,omitempty"`
	InternalDate string    `json:"internalDate,omitempty"`
	Raw          string    `json:"raw,omitempty"`
}

type wireMessageRef struct {
	ID       string   `json:"id"`
	ThreadID string   `json:"threadId"`
	LabelIDs []string `json:"labelIds,omitempty"`
}

type wireMessageChange struct {
	Message  wireMessageRef `json:"message"`
	LabelIDs []string       `json:"labelIds,omitempty"`
}

type wireHistory struct {
	ID              string              `json:"id"`
	Messages        []wireMessageRef    `json:"messages,omitempty"`
	MessagesAdded   []wireMessageChange `json:"messagesAdded,omitempty"`
	MessagesDeleted []wireMessageChange `json:"messagesDeleted,omitempty"`
	LabelsAdded     []wireMessageChange `json:"labelsAdded,omitempty"`
	LabelsRemoved   []wireMessageChange `json:"labelsRemoved,omitempty"`
}

type wireLabel struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	MessageListVisibility string `json:"messageListVisibility,omitempty"`
	LabelListVisibility   string `json:"labelListVisibility,omitempty"`
	Type                  string `json:"type"`
	MessagesTotal         *int   `json:"messagesTotal,omitempty"`
	MessagesUnread        *int   `json:"messagesUnread,omitempty"`
	ThreadsTotal          *int   `json:"threadsTotal,omitempty"`
	ThreadsUnread         *int   `json:"threadsUnread,omitempty"`
}

func idString(n uint64) string { return strconv.FormatUint(n, 10) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is an error answered the way Google's front end shapes it.
type apiError struct {
	code       int
	status     string // canonical gRPC code name
	domain     string
	reason     string
	message    string
	retryAfter time.Duration
	header     http.Header // extra response headers
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.code, e.reason, e.message) }

func (e *apiError) write(w http.ResponseWriter) {
	for k, vs := range e.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if e.retryAfter > 0 {
		secs := int((e.retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	type item struct {
		Message      string `json:"message"`
		Domain       string `json:"domain"`
		Reason       string `json:"reason"`
		Location     string `json:"location,omitempty"`
		LocationType string `json:"locationType,omitempty"`
	}
	it := item{Message: e.message, Domain: e.domain, Reason: e.reason}
	if e.code == http.StatusUnauthorized {
		it.Location, it.LocationType = "Authorization", "header"
		if e.reason == "authError" {
			it.Message = "Invalid Credentials"
		} else {
			it.Message = "Login Required."
		}
	}
	type body struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Errors  []item `json:"errors"`
		Status  string `json:"status"`
	}
	writeJSON(w, e.code, struct {
		Error body `json:"error"`
	}{body{e.code, e.message, []item{it}, e.status}})
}

func errNotFound() *apiError {
	return &apiError{code: 404, status: "NOT_FOUND", domain: "global", reason: "notFound", message: "Requested entity was not found."}
}

func errInvalid(format string, args ...any) *apiError {
	return &apiError{code: 400, status: "INVALID_ARGUMENT", domain: "global", reason: "invalidArgument", message: fmt.Sprintf(format, args...)}
}

func errFailedPrecondition(msg string) *apiError {
	return &apiError{code: 400, status: "FAILED_PRECONDITION", domain: "global", reason: "failedPrecondition", message: msg}
}

func errForbidden(msg string) *apiError {
	return &apiError{code: 403, status: "PERMISSION_DENIED", domain: "global", reason: "forbidden", message: msg}
}

func errInsufficientPermissions() *apiError {
	return &apiError{code: 403, status: "PERMISSION_DENIED", domain: "global", reason: "insufficientPermissions",
		message: "Request had insufficient authentication scopes."}
}

func errConflict(msg string) *apiError {
	return &apiError{code: 409, status: "ABORTED", domain: "global", reason: "duplicate", message: msg}
}

// errUnauthenticated answers a missing (reason "required") or refused
// (reason "authError") credential, with the header Google sends.
func errUnauthenticated(missing bool) *apiError {
	e := &apiError{code: 401, status: "UNAUTHENTICATED", domain: "global", reason: "authError",
		message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
		header:  http.Header{"Www-Authenticate": {`Bearer realm="https://accounts.google.com/", error="invalid_token"`}}}
	if missing {
		e.reason = "required"
		e.message = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
		e.header = http.Header{"Www-Authenticate": {`Bearer realm="https://accounts.google.com/"`}}
	}
	return e
}

func errRateLimit(retryAfter time.Duration, now time.Time) *apiError {
	return &apiError{code: 429, status: "RESOURCE_EXHAUSTED", domain: "usageLimits", reason: "rateLimitExceeded",
		message:    "User-rate limit exceeded.  Retry after " + now.Add(retryAfter).UTC().Format("2006-01-02T15:04:05.000Z"),
		retryAfter: retryAfter}
}

// errForStatus builds the error Google would most likely send with this
// status, for injected faults.
func errForStatus(status int, retryAfter time.Duration, now time.Time) *apiError {
	var e *apiError
	switch status {
	case 400:
		e = errInvalid("Bad Request")
	case 401:
		e = errUnauthenticated(false)
	case 403:
		// Gmail documents 403 userRateLimitExceeded for per-user limits;
		// that is the 403 a client has to survive, so it is the one injected.
		e = &apiError{code: 403, status: "PERMISSION_DENIED", domain: "usageLimits", reason: "userRateLimitExceeded", message: "User Rate Limit Exceeded"}
	case 404:
		e = errNotFound()
	case 429:
		e = errRateLimit(retryAfter, now)
	case 500:
		e = &apiError{code: 500, status: "INTERNAL", domain: "global", reason: "backendError", message: "Backend Error"}
	case 503:
		e = &apiError{code: 503, status: "UNAVAILABLE", domain: "global", reason: "backendError", message: "The service is currently unavailable."}
	default:
		e = &apiError{code: status, status: "UNKNOWN", domain: "global", reason: "backendError", message: http.StatusText(status)}
	}
	e.retryAfter = retryAfter
	return e
}
