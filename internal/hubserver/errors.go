package hubserver

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/internal/hubwire"
)

// WriteError writes a refusal: status and the structured error err, the
// core's bytes when err is an *askcore.Error the core wrote.
func WriteError(w http.ResponseWriter, status int, err error) {
	var body []byte
	switch e := err.(type) {
	case *askcore.Error:
		body = e.JSON()
	case *hubwire.Error:
		body, _ = json.Marshal(e)
	default:
		body, _ = json.Marshal(hubError(codeFor(status), err.Error()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

func hubError(code, message string) *hubwire.Error {
	return &hubwire.Error{Name: hubwire.ErrorName, Code: code, Message: message}
}

// codeFor is the HubError code of an HTTP status.
func codeFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return hubwire.CodeUnauthorized
	case http.StatusNotFound:
		return hubwire.CodeNotFound
	case http.StatusConflict:
		return hubwire.CodeConflict
	case http.StatusRequestEntityTooLarge:
		return hubwire.CodeTooLarge
	case http.StatusTooManyRequests:
		return hubwire.CodeRateLimited
	case http.StatusMisdirectedRequest:
		return hubwire.CodeWrongHost
	case http.StatusForbidden:
		return hubwire.CodeForbidden
	case http.StatusMethodNotAllowed:
		return hubwire.CodeMethod
	case http.StatusServiceUnavailable:
		return hubwire.CodeUnavailable
	}
	return hubwire.CodeBadRequest
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// quote shows text from a request in a message, quoted and cut.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100]
	}
	return strconv.Quote(s)
}
