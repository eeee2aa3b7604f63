package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// AnswerLink is a capability to answer one ask with one option: whoever
// holds its token may choose that option, through the hub's core, while
// the ask is pending. Only the token's hash is kept.
type AnswerLink struct {
	TokenHash string
	AskID     string
	// Option is the option's index in the ask's one question (the
	// position in the request as given).
	Option int
	// Via names what carried the link, as the event log says where a
	// reply came from: ViaEmail, ViaNtfy, ViaChat.
	Via       string
	CreatedAt time.Time
}

// Where answer links travel; an ask replied through one is replied
// "from" it.
const (
	ViaEmail = "an email link"
	ViaNtfy  = "an ntfy button"
	ViaChat  = "a chat link"
)

// AnswerLinkPrefix begins every answer link token (secret scanners).
const AnswerLinkPrefix = "acl_"

// NewAnswerLinkToken returns a new link token (256 random bits,
// base64url) and its hash as the store keeps it.
func NewAnswerLinkToken() (token, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	token = AnswerLinkPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashAnswerLinkToken(token)
}

// HashAnswerLinkToken is the stored form of a link token: hex SHA-256.
// The token has 256 random bits, so a fast hash loses nothing.
func HashAnswerLinkToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func (s *sqlStore) CreateAnswerLinks(ctx context.Context, links []AnswerLink) error {
	if len(links) == 0 {
		return nil
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, l := range links {
			if _, err := s.on(tx).ExecContext(ctx, s.d.q(`INSERT INTO answer_links (token_hash, ask_id, option_index, via, created_at) VALUES (?, ?, ?, ?, ?)`),
				l.TokenHash, l.AskID, l.Option, l.Via, ms2(l.CreatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *sqlStore) AnswerLink(ctx context.Context, tokenHash string) (AnswerLink, error) {
	l := AnswerLink{TokenHash: tokenHash}
	var created int64
	err := s.on(nil).QueryRowContext(ctx, s.d.q(`SELECT ask_id, option_index, via, created_at FROM answer_links WHERE token_hash = ?`), tokenHash).
		Scan(&l.AskID, &l.Option, &l.Via, &created)
	l.CreatedAt = time.UnixMilli(created)
	return l, notFound(err)
}

// The paths of answer links on the hub: LinkPath+token is the page a
// person opens (GET shows, its button's POST answers); ButtonPath+token
// is an ntfy button's, answered by one POST from the ntfy app.
const (
	LinkPath   = "/a/"
	ButtonPath = "/b/"
)
