package frontdoor

import (
	"runtime/debug"

	"golang.org/x/mod/module"
)

// version and commit are what a release build says it is (make dist:
// -ldflags "-X github.com/askcore/askcore/frontdoor.version=V -X
// github.com/askcore/askcore/frontdoor.commit=C"). The build info alone
// cannot say it: a binary built from a checkout carries a pseudo-version,
// not the release's name, and one built from a module download
// (go install ...@v1.2.3) carries no commit.
var version, commit string

// Version is the askcore version the binary was built as: the release's
// (make dist), else the module version the build recorded (v1.2.3 for go
// install github.com/askcore/askcore/cmd/askcore-mcp@v1.2.3, a
// pseudo-version for a build in a checkout), else "devel". The binaries
// report it in ACP's and MCP's initialize.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Commit is the commit the binary was built from, 12 hex digits: the
// release's (make dist), else the VCS revision the build recorded (with
// "-dirty" for uncommitted changes), else the one a pseudo-version names,
// else "unknown" (a tagged module download records none).
func Commit() string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" && module.IsPseudoVersion(bi.Main.Version) {
		rev, _ = module.PseudoVersionRev(bi.Main.Version)
	}
	if rev == "" {
		return "unknown"
	}
	return rev[:min(len(rev), 12)] + dirty
}

// VersionLine is what command prints for --version: "COMMAND VERSION (COMMIT)".
func VersionLine(command string) string {
	return command + " " + Version() + " (" + Commit() + ")"
}
