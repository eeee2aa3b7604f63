package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"

	gomail "github.com/wneessen/go-mail"

	"github.com/askcore/askcore/hub/store"
)

// Email: one mail per new ask to a target's address, written and sent
// with github.com/wneessen/go-mail (MIME, RFC 2047 headers, SMTP with
// STARTTLS and authentication): nothing of the mail's format is written
// by hand here (RATIONALE.md).

// CheckSMTPURL refuses an SMTP server URL the hub does not send through:
// smtp://[USER@]HOST:PORT (STARTTLS, or plain to a loopback server
// only) or smtps://[USER@]HOST:PORT (TLS from the start). A password
// never goes in the URL: the command line would show it.
func CheckSMTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || u.Port() == "" {
		return fmt.Errorf("hub notify: %q is not smtp://[USER@]HOST:PORT or smtps://[USER@]HOST:PORT", raw)
	}
	if _, set := u.User.Password(); set {
		return errors.New("hub notify: the SMTP URL carries a password: leave it out and give it with --smtp-password-file") // the URL is not repeated: the error would show the password
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("hub notify: %q: an SMTP URL has no path, query or fragment", raw)
	}
	return nil
}

// CheckAddress refuses what is not one plain mail address.
func CheckAddress(addr string) error {
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr {
		return fmt.Errorf("hub notify: %q is not a mail address (name@example.com)", addr)
	}
	return nil
}

// loopbackHost: the SMTP server is on this machine, so a mail in clear
// never crosses a network.
func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// smtpSecurity is how the hub talks to an SMTP server: smtps is TLS from
// the first byte (ssl); smtp to a loopback host is STARTTLS when the
// server offers it, else plain (a mail in clear never crosses a
// network); smtp to any other host requires STARTTLS (a server that does
// not offer it gets no mail).
func smtpSecurity(scheme, host string) (ssl bool, policy gomail.TLSPolicy) {
	switch {
	case scheme == "smtps":
		return true, gomail.TLSMandatory
	case loopbackHost(host):
		return false, gomail.TLSOpportunistic
	default:
		return false, gomail.TLSMandatory
	}
}

// smtpClient is the client for a target's server URL and password.
func (n *Notifier) smtpClient(raw, password string) (*gomail.Client, error) {
	if err := CheckSMTPURL(raw); err != nil {
		return nil, err
	}
	u, _ := url.Parse(raw)
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return nil, fmt.Errorf("hub notify: %q: bad port", raw)
	}
	ssl, policy := smtpSecurity(u.Scheme, u.Hostname())
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(n.o.Timeout), gomail.WithTLSPolicy(policy)}
	if ssl {
		opts = append(opts, gomail.WithSSL())
	}
	if user := u.User.Username(); user != "" {
		// PLAIN or LOGIN, as the server offers; go-mail sends neither
		// over an unencrypted connection except to localhost.
		opts = append(opts, gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(user), gomail.WithPassword(password))
	}
	return gomail.NewClient(u.Hostname(), opts...)
}

// mail writes the mail of ask a for target t.
func (n *Notifier) mail(ctx context.Context, t store.NotifyTarget, a store.Ask, deliveryID string) (*gomail.Msg, error) {
	links, err := n.answerLinks(ctx, a, store.ViaEmail, store.LinkPath)
	if err != nil {
		return nil, err
	}
	c := parseCall(a.Call)
	v := mailView{Agent: oneLine(a.AgentName, 64), Questions: c.Questions, Batch: c.Batch, Links: links, InboxURL: n.o.InboxURL}
	m := gomail.NewMsg()
	from := t.Settings.From
	if from == "" {
		from = t.Settings.To
	}
	if err := m.FromFormat("askcore-hub", from); err != nil {
		return nil, errDropped(err)
	}
	if err := m.To(t.Settings.To); err != nil {
		return nil, errDropped(err)
	}
	m.Subject(Subject(a.AgentName, a.Call))
	m.SetMessageIDWithValue(deliveryID + "@askcore-hub")
	m.SetDate()
	// A machine wrote this mail: no vacation reply, no auto-forward
	// loop (RFC 3834), no Outlook out-of-office either.
	m.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	m.SetGenHeader(gomail.HeaderXAutoResponseSuppress, "All")
	m.SetGenHeader(gomail.HeaderUserAgent, "askcore-hub")
	m.SetBodyString(gomail.TypeTextPlain, v.Text())
	m.AddAlternativeString(gomail.TypeTextHTML, v.HTML())
	return m, nil
}

// email sends the mail of ask a to target t. A server's permanent refusal
// (5xx: a recipient or sender it will never take) is given up at once; a
// server that cannot be reached, or a temporary refusal, is retried.
func (n *Notifier) email(ctx context.Context, t store.NotifyTarget, a store.Ask, deliveryID string) error {
	if CheckAddress(t.Settings.To) != nil {
		return errDrop
	}
	client, err := n.smtpClient(t.URL, t.Secret)
	if err != nil {
		return errDropped(err)
	}
	m, err := n.mail(ctx, t, a, deliveryID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()
	err = client.DialAndSendWithContext(ctx, m)
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && (se.Reason == gomail.ErrSMTPRcptTo || se.Reason == gomail.ErrSMTPMailFrom || se.Reason == gomail.ErrSMTPData || se.Reason == gomail.ErrSMTPDataClose) {
		return errDropped(fmt.Errorf("%s refused the mail: %w", redactURL(t.URL), err))
	}
	return err
}

// redactURL is an SMTP URL without its user, for the log.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the SMTP server"
	}
	u.User = nil
	return strings.TrimSuffix(u.String(), "/")
}
