package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/store"
)

// notifyAdd adds a webhook (its signing secret printed once, on stdout),
// an ntfy topic (its token read from a file, never from the command
// line, where other users' ps would see it) or a mailbox (the SMTP
// password likewise from a file).
func (c *cli) notifyAdd(ctx context.Context, args []string) error {
	if len(args) != 2 || (args[0] != store.NotifyWebhook && args[0] != store.NotifyNtfy && args[0] != store.NotifyEmail) {
		return usageError{"notify add webhook URL, notify add ntfy URL, or notify add email ADDRESS --smtp URL"}
	}
	kind := args[0]
	t := store.NotifyTarget{Kind: kind, URL: args[1]}
	if kind != store.NotifyNtfy && c.answerButtons {
		return usageError{"--answer-buttons is for ntfy (a webhook and a mail carry answer links always)"}
	}
	if kind != store.NotifyEmail && (c.smtp != "" || c.from != "" || c.smtpPasswordFile != "") {
		return usageError{"--smtp, --from and --smtp-password-file are for email"}
	}
	switch kind {
	case store.NotifyWebhook:
		if c.tokenFile != "" {
			return usageError{"--token-file is for ntfy; a webhook's secret is made by the hub"}
		}
		t.Secret = notify.NewSecret()
	case store.NotifyNtfy:
		t.Settings.AnswerButtons = c.answerButtons
		if c.tokenFile != "" {
			secret, err := c.readSecret(c.tokenFile, "the token file")
			if err != nil {
				return err
			}
			t.Secret = secret
		}
	case store.NotifyEmail:
		if c.tokenFile != "" {
			return usageError{"--token-file is for ntfy; give the SMTP password with --smtp-password-file"}
		}
		if err := notify.CheckAddress(args[1]); err != nil {
			return usageError{err.Error()}
		}
		if c.smtp == "" {
			return usageError{"notify add email needs --smtp smtp://[USER@]HOST:PORT or smtps://[USER@]HOST:PORT"}
		}
		if err := notify.CheckSMTPURL(c.smtp); err != nil {
			return usageError{err.Error()}
		}
		if c.from != "" {
			if err := notify.CheckAddress(c.from); err != nil {
				return usageError{"--from: " + err.Error()}
			}
		}
		t.URL, t.Settings.To, t.Settings.From = c.smtp, args[1], c.from
		if c.smtpPasswordFile != "" {
			secret, err := c.readSecret(c.smtpPasswordFile, "the password file")
			if err != nil {
				return err
			}
			t.Secret = secret
		}
	}
	if kind != store.NotifyEmail {
		if err := notify.CheckURL(t.URL); err != nil {
			return usageError{err.Error()}
		}
	}
	s, p, err := c.openPerson(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t.PersonID = p.ID
	t, err = s.AddNotifyTarget(ctx, t)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: %s %d added for %s\n", kind, t.ID, p.Name)
	if kind == store.NotifyWebhook {
		fmt.Fprintf(c.stderr, "askcore-hub: the signing secret (verify %s with it; shown once):\n", notify.SignatureHeader)
		fmt.Fprintln(c.stdout, t.Secret)
	}
	return nil
}

// readSecret reads a secret from file ("-": stdin), trimmed; what names
// the file in an error.
func (c *cli) readSecret(file, what string) (string, error) {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(c.stdin, 4096))
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", err
	}
	secret := strings.TrimSpace(string(b))
	if secret == "" {
		return "", usageError{what + " is empty"}
	}
	return secret, nil
}

func (c *cli) notifyList(ctx context.Context) error {
	return c.list(ctx, "ID\tPERSON\tKIND\tURL\tSECRET\tCREATED", func(s store.Store, names map[int64]string) ([][]string, error) {
		targets, err := s.NotifyTargets(ctx, 0)
		if err != nil {
			return nil, err
		}
		rows := make([][]string, 0, len(targets))
		for _, t := range targets {
			secret := "-"
			if t.Secret != "" {
				secret = "set"
			}
			where := t.URL
			switch {
			case t.Kind == store.NotifyEmail:
				where = t.Settings.To + " via " + t.URL
			case t.Settings.AnswerButtons:
				where += " (answer buttons)"
			}
			rows = append(rows, []string{strconv.FormatInt(t.ID, 10), names[t.PersonID], string(t.Kind), where, secret, t.CreatedAt.UTC().Format(time.RFC3339)})
		}
		return rows, nil
	})
}

func (c *cli) notifyRemove(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageError{"give one target ID (notify list)"}
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return usageError{"a target ID is a number (notify list)"}
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.RemoveNotifyTarget(ctx, id); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no notification target %d", id)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: notification target %d removed\n", id)
	return nil
}
