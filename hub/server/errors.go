package server

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/hub/internal/wire"
)

// WriteError writes a refusal: status and the structured error err, the
// core's bytes when err is an *askcore.Error the core wrote.
func WriteError(w http.ResponseWriter, status int, err error) {
	var body []byte
	switch e := err.(type) {
	case *askcore.Error:
		body = e.JSON()
	case *wire.Error:
		body, _ = json.Marshal(e)
	default:
		body, _ = json.Marshal(hubError(codeFor(status), err.Error()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

func hubError(code, message string) *wire.Error {
	return &wire.Error{Name: wire.ErrorName, Code: code, Message: message}
}

// codeFor is the HubError code of an HTTP status.
func codeFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return wire.CodeUnauthorized
	case http.StatusNotFound:
		return wire.CodeNotFound
	case http.StatusConflict:
		return wire.CodeConflict
	case http.StatusRequestEntityTooLarge:
		return wire.CodeTooLarge
	case http.StatusTooManyRequests:
		return wire.CodeRateLimited
	case http.StatusMisdirectedRequest:
		return wire.CodeWrongHost
	case http.StatusForbidden:
		return wire.CodeForbidden
	case http.StatusMethodNotAllowed:
		return wire.CodeMethod
	case http.StatusServiceUnavailable:
		return wire.CodeUnavailable
	}
	return wire.CodeBadRequest
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
