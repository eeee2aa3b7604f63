package core

import (
	"strconv"
	"strings"

	"github.com/askcore/askcore/core/internal/jsonx"
)

// maxURLChars bounds the address a progress message names.
const maxURLChars = 2048

// envelopeProgress is op "progress": the words of a progress message
// while a question waits for its person, {"message":...}. Fields: ms
// (whole milliseconds since the question was put), url (optional: the
// address where the person can answer, http or https). Hosts send it
// while the question is open, never after it ended.
func envelopeProgress(env *jsonx.Value) ([]byte, *harnessError) {
	v, n := lookup(env, "ms")
	if n == 0 || v.Kind == jsonx.Null {
		return nil, invalidRequest("ms is required: the whole milliseconds since the question was put")
	}
	ms, ok := wholeNumber(v, 15)
	if n > 1 || !ok {
		return nil, invalidRequest("ms must be a whole number of milliseconds (since the question was put), given once; got " + describeNumber(v))
	}
	url, err := envelopeOptString(env, "url")
	if err != nil {
		return nil, err
	}
	msg := "Waiting for your answer…"
	if ms >= 1000 {
		msg += " (" + elapsedWords(ms) + " so far)"
	}
	if url != "" {
		if !isWebAddress(url) {
			return nil, invalidRequest("url must be the http or https address where the person can answer, with no spaces, at most " +
				strconv.Itoa(maxURLChars) + " characters; got " + snippet(url))
		}
		if ms >= 1000 {
			msg += "."
		}
		msg += " Answer at " + url
	}
	b := okPrefix(48 + len(msg))
	b = append(b, `{"message":`...)
	b = jsonx.AppendString(b, msg)
	return append(b, "}}"...), nil
}

// isWebAddress reports an http(s) address made of printable ASCII without
// spaces, quotes or angle brackets: something a terminal shows as it is
// and a person can open.
func isWebAddress(u string) bool {
	if len(u) > maxURLChars || !(strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
		return false
	}
	for i := 0; i < len(u); i++ {
		if c := u[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '`' {
			return false
		}
	}
	rest := u[strings.Index(u, "://")+3:]
	return rest != "" && rest[0] != '/'
}

// elapsedWords says a time span in words, to the second under an hour
// and to the minute above: "45 seconds", "1 minute 5 seconds", "2 hours
// 3 minutes".
func elapsedWords(ms int64) string {
	s := ms / 1000
	h, m, sec := s/3600, s/60%60, s%60
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	var parts []string
	if h > 0 {
		parts = append(parts, unit(h, "hour"))
	}
	if m > 0 {
		parts = append(parts, unit(m, "minute"))
	}
	if h == 0 && (sec > 0 || m == 0) {
		parts = append(parts, unit(sec, "second"))
	}
	return strings.Join(parts, " ")
}
