// Package script is the scripted model of docs/SPEC.md ("Front doors"): a JSON
// Lines file where each line is one model reply,
//
//	{"content": TEXT}
//	{"tool_calls": [{"id": ID, "name": "ask_user_question", "arguments": {...}}]}
//	{"content": TEXT, "tool_calls": [...]}
//
// A reply with tool calls is followed by the next line once the tools ran; a
// reply without tool calls ends the turn. The model keeps no state about
// conversations: the line it plays is the number of assistant messages
// already in the conversation passed to Complete, so one Model serves any
// number of conversations (each ACP session, the terminal conversation),
// each replaying the script from its own first line. Past the last line it
// ends the turn with the notice Finished.
//
// In content, {{answer}} becomes what the latest ask_user_question result
// answered, as text (a multi-select answer's values joined by ", ", a
// batch's answers by "; "), or its error code (ASK_DECLINED, ...); {{notes}}
// becomes the notes the person added to that result, empty when there are
// none, and {{#notes}}...{{/notes}} keeps what it encloses only when there
// are notes (so a reply need not print an empty quote). With no such
// result yet all stay as they are. docs/SPEC.md ("Front
// doors") is the rule; the tests hold an example of each case.
//
// Arguments reach the tool as text, unchanged, as a real model's do: a JSON
// string is the arguments text itself (as OpenAI sends it), passed on
// verbatim even when it is not valid JSON, so a script can exercise the
// core's INVALID_REQUEST; any other JSON value (an object, usually) is
// passed on as its JSON text, exactly as the line spells it. Missing or
// null arguments are no text at all. A missing id becomes
// "call_<line>_<n>". Blank lines are skipped; unknown fields are errors.
package script

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/askcore/askcore"
	"github.com/askcore/askcore/agent"
)

// Placeholder is replaced in content by the latest answer (or error code).
const Placeholder = "{{answer}}"

// NotesPlaceholder is replaced in content by the notes of the latest answer
// (empty when it has none).
const NotesPlaceholder = "{{notes}}"

// notesSection matches a {{#notes}}...{{/notes}} section: kept (without
// its marks) when the latest answer has notes, dropped when it has none.
var notesSection = regexp.MustCompile(`(?s)\{\{#notes\}\}(.*?)\{\{/notes\}\}`)

// Finished is the reply past the last line of a script.
const Finished = "(script finished)"

// Model replays a script. It is immutable and safe for concurrent use.
type Model struct {
	replies []agent.Reply
}

var _ agent.Model = (*Model)(nil)

//go:embed demo.jsonl
var demo []byte

// Demo returns the built-in demo script: it greets, asks a batch of two
// questions through ask_user_question (a choice and a multi-select one),
// uses the answer, asks a choice between two code layouts shown as
// previews (free text allowed; it tells how to add notes, in line mode
// after //) and wraps up with the answer and the notes ({{notes}}). It
// works offline.
func Demo() *Model {
	m, err := Parse(bytes.NewReader(demo))
	if err != nil {
		panic("script: the built-in demo does not parse: " + err.Error())
	}
	return m
}

// Load parses the script in the file at path.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	defer f.Close()
	m, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

type line struct {
	Content   *string    `json:"content"`
	ToolCalls []lineCall `json:"tool_calls"`
}

type lineCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Parse reads a JSON Lines script. Errors name the line (from 1).
func Parse(r io.Reader) (*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	m := &Model{}
	n := 0
	for sc.Scan() {
		n++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		reply, err := parseLine(text, n)
		if err != nil {
			return nil, fmt.Errorf("script line %d: %w", n, err)
		}
		m.replies = append(m.replies, reply)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("script line %d: %w", n+1, err)
	}
	if len(m.replies) == 0 {
		return nil, errors.New("script: no replies (the script is empty)")
	}
	return m, nil
}

func parseLine(text []byte, n int) (agent.Reply, error) {
	if text[0] != '{' {
		return agent.Reply{}, errors.New(`want a JSON object such as {"content":"..."} or {"tool_calls":[...]}`)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var l line
	if err := dec.Decode(&l); err != nil {
		return agent.Reply{}, err
	}
	if dec.More() {
		return agent.Reply{}, errors.New("one reply per line: unexpected text after the JSON object")
	}
	if l.Content == nil && len(l.ToolCalls) == 0 {
		return agent.Reply{}, errors.New(`a reply needs "content" and/or "tool_calls"`)
	}
	var reply agent.Reply
	if l.Content != nil {
		reply.Content = *l.Content
	}
	for i, c := range l.ToolCalls {
		if c.Name == "" {
			return agent.Reply{}, fmt.Errorf("tool call %d has no name", i+1)
		}
		call := agent.ToolCall{ID: c.ID, Name: c.Name, Arguments: json.RawMessage{}}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d_%d", n, i+1)
		}
		switch {
		case len(c.Arguments) == 0 || bytes.Equal(c.Arguments, []byte("null")):
		case c.Arguments[0] == '"':
			var s string
			if err := json.Unmarshal(c.Arguments, &s); err != nil {
				return agent.Reply{}, fmt.Errorf("tool call %d: arguments: %w", i+1, err)
			}
			call.Arguments = json.RawMessage(s)
		default:
			call.Arguments = append(json.RawMessage(nil), c.Arguments...)
		}
		reply.ToolCalls = append(reply.ToolCalls, call)
	}
	return reply, nil
}

// Len is the number of replies in the script.
func (m *Model) Len() int { return len(m.replies) }

// Complete plays the line after the conversation's assistant messages, with
// {{answer}} and {{notes}} substituted.
func (m *Model) Complete(ctx context.Context, messages []agent.Message, _ []askcore.Tool) (agent.Reply, error) {
	if err := ctx.Err(); err != nil {
		return agent.Reply{}, err
	}
	played := 0
	for _, msg := range messages {
		if msg.Role == agent.RoleAssistant {
			played++
		}
	}
	if played >= len(m.replies) {
		return agent.Reply{Content: Finished}, nil
	}
	src := m.replies[played]
	reply := agent.Reply{Content: src.Content}
	if strings.Contains(reply.Content, Placeholder) || strings.Contains(reply.Content, NotesPlaceholder) {
		if answer, ok := LatestAnswer(messages); ok {
			notes, _ := LatestNotes(messages)
			keep := "$1"
			if notes == "" {
				keep = ""
			}
			reply.Content = notesSection.ReplaceAllString(reply.Content, keep)
			// One pass, so that an answer holding "{{notes}}" stays as
			// the person typed it.
			reply.Content = strings.NewReplacer(Placeholder, answer, NotesPlaceholder, notes).Replace(reply.Content)
		}
	}
	// Copy, so callers may keep or change the history without touching
	// the script.
	for _, c := range src.ToolCalls {
		c.Arguments = append(json.RawMessage(nil), c.Arguments...)
		reply.ToolCalls = append(reply.ToolCalls, c)
	}
	return reply, nil
}

// LatestAnswer is what {{answer}} stands for in messages: the answer of the
// latest ask_user_question result as text (see the package doc for
// multi-select and batch answers), or its error "code" when it failed. ok
// is false when there is no such result.
func LatestAnswer(messages []agent.Message) (string, bool) {
	msg, ok := latestResult(messages)
	if !ok {
		return "", false
	}
	if msg.IsError {
		var obj struct {
			Code string `json:"code"`
		}
		if json.Unmarshal([]byte(msg.Content), &obj) != nil || obj.Code == "" {
			return "ERROR", true
		}
		return obj.Code, true
	}
	var a answer
	_ = json.Unmarshal([]byte(msg.Content), &a)
	return a.text(), true
}

// LatestNotes is what {{notes}} stands for in messages: the notes of the
// latest ask_user_question result (see the package doc for batches), empty
// when it has none or failed. ok is false when there is no such result.
func LatestNotes(messages []agent.Message) (string, bool) {
	msg, ok := latestResult(messages)
	if !ok {
		return "", false
	}
	if msg.IsError {
		return "", true
	}
	var a answer
	_ = json.Unmarshal([]byte(msg.Content), &a)
	return a.notes(), true
}

// latestResult is the latest ask_user_question result in messages.
func latestResult(messages []agent.Message) (agent.Message, bool) {
	for i := len(messages) - 1; i >= 0; i-- {
		msg := messages[i]
		if msg.Role == agent.RoleTool && msg.ToolName == askcore.ToolName {
			return msg, true
		}
	}
	return agent.Message{}, false
}

// answer is the part of the core's answer object {{answer}} and {{notes}}
// read: one question's {"answer"} or {"answers":[...]} (multi-select) and
// its "notes", or a batch's {"answers":[{...},...]}.
type answer struct {
	Answer  *string           `json:"answer"`
	Answers []json.RawMessage `json:"answers"`
	Notes   string            `json:"notes"`
}

// batch reports whether a is a batch's answer.
func (a answer) batch() bool {
	return a.Answer == nil && len(a.Answers) > 0 && bytes.HasPrefix(a.Answers[0], []byte("{"))
}

func (a answer) notes() string {
	if !a.batch() {
		return a.Notes
	}
	var parts []string
	for _, raw := range a.Answers { // a batch: the questions with notes
		var q answer
		_ = json.Unmarshal(raw, &q)
		if q.Notes != "" {
			parts = append(parts, q.Notes)
		}
	}
	return strings.Join(parts, "; ")
}

func (a answer) text() string {
	if a.Answer != nil {
		return *a.Answer
	}
	parts := make([]string, len(a.Answers))
	if a.batch() {
		for i, raw := range a.Answers { // a batch: each question's answer
			var q answer
			_ = json.Unmarshal(raw, &q)
			parts[i] = q.text()
		}
		return strings.Join(parts, "; ")
	}
	for i, raw := range a.Answers { // a multi-select question's values
		_ = json.Unmarshal(raw, &parts[i])
	}
	return strings.Join(parts, ", ")
}
