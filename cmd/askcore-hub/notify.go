package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/store"
)

// notifyAdd adds a webhook (its signing secret printed once, on stdout)
// or an ntfy topic (its token read from a file, never from the command
// line, where other users' ps would see it).
func (c *cli) notifyAdd(ctx context.Context, args []string) error {
	if len(args) != 2 || (args[0] != store.NotifyWebhook && args[0] != store.NotifyNtfy) {
		return usageError{"notify add webhook URL, or notify add ntfy URL"}
	}
	kind, url := args[0], args[1]
	if err := notify.CheckURL(url); err != nil {
		return usageError{err.Error()}
	}
	var secret string
	switch {
	case kind == store.NotifyWebhook && c.tokenFile != "":
		return usageError{"--token-file is for ntfy; a webhook's secret is made by the hub"}
	case kind == store.NotifyWebhook:
		secret = notify.NewSecret()
	case c.tokenFile != "":
		var b []byte
		var err error
		if c.tokenFile == "-" {
			b, err = io.ReadAll(io.LimitReader(c.stdin, 4096))
		} else {
			b, err = os.ReadFile(c.tokenFile)
		}
		if err != nil {
			return err
		}
		if secret = strings.TrimSpace(string(b)); secret == "" {
			return usageError{"the token file is empty"}
		}
	}
	s, p, err := c.openPerson(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := s.AddNotifyTarget(ctx, store.NotifyTarget{PersonID: p.ID, Kind: kind, URL: url, Secret: secret})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "askcore-hub: %s %d added for %s\n", kind, t.ID, p.Name)
	if kind == store.NotifyWebhook {
		fmt.Fprintf(c.stderr, "askcore-hub: the signing secret (verify %s with it; shown once):\n", notify.SignatureHeader)
		fmt.Fprintln(c.stdout, secret)
	}
	return nil
}

func (c *cli) notifyList(ctx context.Context) error {
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	targets, err := s.NotifyTargets(ctx, 0)
	if err != nil {
		return err
	}
	names, err := personNames(ctx, s)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPERSON\tKIND\tURL\tSECRET\tCREATED")
	for _, t := range targets {
		secret := "-"
		if t.Secret != "" {
			secret = "set"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, names[t.PersonID], t.Kind, t.URL, secret, t.CreatedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
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
