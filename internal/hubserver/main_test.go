package hubserver

import (
	"os"
	"testing"

	"github.com/askcore/askcore/internal/pgtest"
)

// TestMain starts a throwaway PostgreSQL for the tests that run on it
// (package pgtest), where one can be started.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
