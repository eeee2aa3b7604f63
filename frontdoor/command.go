package frontdoor

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Command is the command line of a protocol front door (askcore-acp,
// askcore-mcp): a flag set whose errors and usage go to stderr, stdout
// being the protocol's, with --version registered. A front door adds its
// own flags to FlagSet, then calls Parse.
type Command struct {
	*flag.FlagSet
	name           string
	version        *bool
	stdout, stderr io.Writer
}

// NewCommand returns the command line of the program name, whose --help
// prints usage and then the flags' defaults.
func NewCommand(name, usage string, stdout, stderr io.Writer) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	c := &Command{FlagSet: fs, name: name, stdout: stdout, stderr: stderr}
	c.version = fs.Bool("version", false, "print the version and exit")
	return c
}

// Parse parses args. done says the program ends here, with status: 0
// after --help or --version (printed on stdout), 2 after a bad flag or an
// argument (the flags take none), the usage on stderr.
func (c *Command) Parse(args []string) (status int, done bool) {
	if err := c.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	if *c.version {
		fmt.Fprintln(c.stdout, VersionLine(c.name))
		return 0, true
	}
	if c.NArg() > 0 {
		fmt.Fprintf(c.stderr, "%s: unexpected arguments %q\n", c.name, c.Args())
		c.Usage()
		return 2, true
	}
	return 0, false
}
