// Package store keeps the hub's state: people, agents and their tokens,
// asks and the append-only log of what happened to them, sign-in links,
// browser sessions and the notification outbox. One Store interface has
// two implementations sharing one schema and one migration history
// (migrations/*.sql): SQLite, the embedded default, and PostgreSQL, where
// several hub processes share one database.
//
// Every transition of an ask (replied, withdrawn, expired) is one
// conditional UPDATE from pending, in one transaction with its event row:
// exactly one wins, and the others read the winner's outcome. Waiters
// (Watch) are woken after the commit: in process on SQLite, by
// LISTEN/NOTIFY across processes on PostgreSQL, with a poll of the event
// log behind both for a notification that was lost.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// Errors a Store returns; test them with errors.Is.
var (
	ErrNotFound = errors.New("hub store: not found")
	// ErrExists: a person or agent of that name exists already.
	ErrExists = errors.New("hub store: already exists")
	// ErrConflict: an ask with the same agent, session and tool call id
	// exists with other arguments.
	ErrConflict = errors.New("hub store: same ids, other arguments")
)

// State is where an ask is. Pending is the only state an ask leaves.
type State string

// The states of an ask.
const (
	StatePending   State = "pending"
	StateReplied   State = "replied"
	StateWithdrawn State = "withdrawn"
	StateExpired   State = "expired"
)

// WhereAgent is the RepliedWhere of an ask its agent withdrew (it was
// cancelled, or gave up) rather than answered on a surface of its own.
const WhereAgent = "agent"

// EventKind names an entry of the event log.
type EventKind string

// The kinds of events.
const (
	EventAsked     EventKind = "asked"
	EventReplied   EventKind = "replied"
	EventWithdrawn EventKind = "withdrawn"
	EventExpired   EventKind = "expired"
)

// Person is someone who answers asks.
type Person struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// Agent is a program that asks a person through the hub, with its token
// (only its hash is stored).
type Agent struct {
	ID       int64
	PersonID int64
	Name     string
	// TokenHash is the hex SHA-256 of the agent's token.
	TokenHash string
	// Deadline, when positive, expires each of the agent's asks that long
	// after it was asked; zero means never.
	Deadline  time.Duration
	CreatedAt time.Time
	// RevokedAt is zero while the token is valid.
	RevokedAt time.Time
}

// Revoked reports whether the agent's token was revoked.
func (a Agent) Revoked() bool { return !a.RevokedAt.IsZero() }

// NewAgent is what AddAgent stores.
type NewAgent struct {
	PersonID  int64
	Name      string
	TokenHash string // hex SHA-256 of the token
	Deadline  time.Duration
}

// Ask is one question of an agent, as stored.
type Ask struct {
	ID         string
	AgentID    int64
	AgentName  string
	PersonID   int64
	SessionID  string
	ToolCallID string
	// Arguments is the model's text as written; Call the call as the
	// hub's core normalized it.
	Arguments string
	Call      json.RawMessage
	State     State
	// Reply is what the person gave (the seam's reply shapes), once
	// replied; RepliedBy and RepliedWhere say who and from where. For a
	// withdrawn ask RepliedWhere is where the withdrawal came from:
	// WhereAgent, or the agent's own surface that got the answer.
	Reply        json.RawMessage
	RepliedBy    string
	RepliedWhere string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// ExpiresAt is zero when the ask never expires.
	ExpiresAt time.Time
	// WaitingUntil is when the asking program was last known to wait for
	// the reply (MarkWaiting; CreatedAt before its first poll). It is
	// bookkeeping, not the ask's state: no event records it.
	WaitingUntil time.Time
}

// NewAsk is what CreateAsk stores.
type NewAsk struct {
	AgentID    int64
	SessionID  string
	ToolCallID string
	Arguments  string
	Call       json.RawMessage
	// Who is written in the asked event (the agent's name).
	Who string
	At  time.Time
	// ExpiresAt: zero for never.
	ExpiresAt time.Time
}

// Transition is a reply or a withdrawal: who did it, from where, when.
type Transition struct {
	AskID string
	Who   string
	Where string
	At    time.Time
	// Reply is the person's reply, for Reply only.
	Reply json.RawMessage
}

// Event is one entry of the append-only log.
type Event struct {
	ID     int64
	AskID  string
	Kind   EventKind
	Who    string
	Where  string
	At     time.Time
	Detail json.RawMessage // may be nil
}

// EventFilter selects events: zero fields select everything.
type EventFilter struct {
	AskID    string
	PersonID int64
	AfterID  int64 // events with a greater id
	Limit    int   // 0: no limit
}

// AskFilter selects asks of one person, newest first.
type AskFilter struct {
	PersonID int64
	State    State // "" for every state
	Limit    int   // 0: no limit
}

// SigninLink is a one-time sign-in link (its token's hash).
type SigninLink struct {
	TokenHash string
	PersonID  int64
	ExpiresAt time.Time
	UsedAt    time.Time // zero while unused
}

// WebSession is a signed-in browser (its cookie token's hash).
type WebSession struct {
	TokenHash string
	PersonID  int64
	CSRFToken string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// OutboxItem is a notification waiting to be delivered.
type OutboxItem struct {
	ID          int64
	Kind        string
	Payload     json.RawMessage
	Attempts    int
	NextAt      time.Time
	DeliveredAt time.Time // zero until delivered
}

// NotifyTarget is where a person is told of a new ask: a webhook (Secret
// signs each delivery), an ntfy topic (Secret, when set, is its access
// token) or a mailbox (URL is the SMTP server's, Secret its password).
type NotifyTarget struct {
	ID        int64
	PersonID  int64
	Kind      string // NotifyWebhook, NotifyNtfy or NotifyEmail
	URL       string
	Secret    string
	Settings  TargetSettings
	CreatedAt time.Time
}

// TargetSettings are a target's settings beyond its URL and secret, kept
// as one JSON object.
type TargetSettings struct {
	// To and From are an email target's recipient and sender.
	To   string `json:"to,omitempty"`
	From string `json:"from,omitempty"`
	// AnswerButtons: an ntfy target's notifications carry a button per
	// option (answer links) where the question allows.
	AnswerButtons bool `json:"answerButtons,omitempty"`
}

// The kinds of notification targets.
const (
	NotifyWebhook = "webhook"
	NotifyNtfy    = "ntfy"
	NotifyEmail   = "email"
)

// OutboxAsked is the outbox kind of a new ask to notify: its payload is
// AskedPayload.
const OutboxAsked = "asked"

// AskedPayload is the outbox payload of a new ask, one row per target.
type AskedPayload struct {
	TargetID int64  `json:"target"`
	AskID    string `json:"ask"`
}

// Store is the hub's state. Implementations are safe for concurrent use,
// also by several processes on one database.
type Store interface {
	// People.
	AddPerson(ctx context.Context, name string) (Person, error) // ErrExists
	Person(ctx context.Context, id int64) (Person, error)
	PersonByName(ctx context.Context, name string) (Person, error)
	People(ctx context.Context) ([]Person, error)

	// Agents.
	AddAgent(ctx context.Context, a NewAgent) (Agent, error) // ErrExists
	AgentByName(ctx context.Context, name string) (Agent, error)
	// AgentByTokenHash returns the agent, revoked or not; the caller
	// refuses a revoked one.
	AgentByTokenHash(ctx context.Context, tokenHash string) (Agent, error)
	Agents(ctx context.Context) ([]Agent, error)
	RevokeAgent(ctx context.Context, name string, at time.Time) (Agent, error)

	// CreateAsk stores a new pending ask with its asked event, or returns
	// the ask with the same agent, session and tool call id (created
	// false) when its arguments are the same; other arguments are
	// ErrConflict.
	CreateAsk(ctx context.Context, a NewAsk) (ask Ask, created bool, err error)
	Ask(ctx context.Context, id string) (Ask, error)
	// MarkWaiting records that the asking program waits for pending ask
	// id until then (its long poll's end).
	MarkWaiting(ctx context.Context, id string, until time.Time) error
	Asks(ctx context.Context, f AskFilter) ([]Ask, error)
	// CountAsks counts the asks in state, of every person.
	CountAsks(ctx context.Context, state State) (int, error)
	// Reply moves a pending ask to replied, with its event, in one
	// transaction. won is false when the ask had left pending already:
	// ask is then the outcome that won.
	Reply(ctx context.Context, t Transition) (ask Ask, won bool, err error)
	// Withdraw is Reply's transition to withdrawn.
	Withdraw(ctx context.Context, t Transition) (ask Ask, won bool, err error)
	// ExpireDue expires every pending ask whose deadline is at or before
	// now, each with its event, and returns them.
	ExpireDue(ctx context.Context, now time.Time) ([]Ask, error)
	Events(ctx context.Context, f EventFilter) ([]Event, error)

	// Watch returns a channel that receives (coalesced) after a committed
	// change to key (AskKey, PersonKey), and stop, which ends the watch.
	// A wake-up may be spurious: read the state again.
	Watch(key string) (c <-chan struct{}, stop func())

	// Sign-in links: created by the CLI, consumed once.
	CreateSigninLink(ctx context.Context, l SigninLink) error
	// SigninLink reads a link without using it (the page a GET shows).
	SigninLink(ctx context.Context, tokenHash string) (SigninLink, error)
	// ConsumeSigninLink marks an unused, unexpired link used and returns
	// its person; any other link is ErrNotFound.
	ConsumeSigninLink(ctx context.Context, tokenHash string, now time.Time) (personID int64, err error)

	// Browser sessions.
	CreateWebSession(ctx context.Context, s WebSession) error
	// WebSession returns an unexpired session, else ErrNotFound.
	WebSession(ctx context.Context, tokenHash string, now time.Time) (WebSession, error)
	DeleteWebSession(ctx context.Context, tokenHash string) error

	// Notification outbox.
	EnqueueOutbox(ctx context.Context, kind string, payload json.RawMessage, at time.Time) (int64, error)
	// DueOutbox returns undelivered items whose next attempt is due.
	DueOutbox(ctx context.Context, now time.Time, limit int) ([]OutboxItem, error)
	// ClaimOutbox returns up to limit due items and moves their next
	// attempt lease later, in one transaction, so another process
	// claiming at the same time gets other rows (FOR UPDATE SKIP LOCKED
	// on PostgreSQL); an item whose claimer died is due again after the
	// lease.
	ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]OutboxItem, error)
	// MarkOutbox records an attempt: delivered, or retried at next.
	MarkOutbox(ctx context.Context, id int64, delivered bool, next time.Time) error

	// Notification targets. CreateAsk writes one OutboxAsked row per
	// target of the asking agent's person in its own transaction.
	AddNotifyTarget(ctx context.Context, t NotifyTarget) (NotifyTarget, error)
	NotifyTarget(ctx context.Context, id int64) (NotifyTarget, error)
	// NotifyTargets lists a person's targets, or everyone's for 0.
	NotifyTargets(ctx context.Context, personID int64) ([]NotifyTarget, error)
	RemoveNotifyTarget(ctx context.Context, id int64) error // ErrNotFound

	// Answer links: created by the notifier as it sends them, read by
	// the link's page. AnswerLink is ErrNotFound for an unknown hash.
	CreateAnswerLinks(ctx context.Context, links []AnswerLink) error
	AnswerLink(ctx context.Context, tokenHash string) (AnswerLink, error)

	Close() error
}

// AskKey is the Watch key of one ask.
func AskKey(id string) string { return "ask:" + id }

// PersonKey is the Watch key of every ask of one person's agents.
func PersonKey(id int64) string { return "person:" + strconv.FormatInt(id, 10) }
