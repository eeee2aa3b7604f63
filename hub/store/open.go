package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Open opens the store dsn names: a postgres:// or postgresql:// URL, or
// the path of a SQLite file ("" for DefaultPath).
func Open(ctx context.Context, dsn string) (Store, error) {
	if IsPostgres(dsn) {
		return OpenPostgres(ctx, dsn)
	}
	if dsn == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		dsn = p
	}
	return OpenSQLite(ctx, dsn)
}

// IsPostgres reports whether dsn is a PostgreSQL URL.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// DefaultPath is $XDG_DATA_HOME/askcore/hub.db (~/.local/share when
// XDG_DATA_HOME is unset).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "askcore", "hub.db"), nil
}
