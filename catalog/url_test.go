package catalog

import (
	"strings"
	"testing"
	"time"

	"rangecopy/job"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url     string
		dialect Dialect
		dsnHas  []string
		err     string
	}{
		{url: "sqlite:///var/lib/rangecopy/catalog.db", dialect: SQLite, dsnHas: []string{"/var/lib/rangecopy/catalog.db?", "journal_mode%28WAL%29", "busy_timeout%285000%29", "_txlock=immediate", "foreign_keys%281%29"}},
		{url: "/var/lib/rangecopy/catalog.db", dialect: SQLite, dsnHas: []string{"/var/lib/rangecopy/catalog.db?"}},
		{url: "catalog.db", dialect: SQLite, dsnHas: []string{"catalog.db?"}},
		{url: "sqlite:catalog.db", dialect: SQLite, dsnHas: []string{"catalog.db?"}},
		{url: "mysql://rc:secret@db1:3307/rangecopy?tls=true", dialect: MySQL, dsnHas: []string{"rc:secret@tcp(db1:3307)/rangecopy?", "parseTime=true", "loc=UTC", "tls=true", "charset=utf8mb4"}},
		{url: "mariadb://rc:secret@db1/rangecopy", dialect: MySQL, dsnHas: []string{"@tcp(db1:3306)/rangecopy?"}},
		{url: "postgres://rc:secret@db1:5433/rangecopy?sslmode=disable", dialect: Postgres, dsnHas: []string{"postgres://rc:secret@db1:5433/rangecopy?", "sslmode=disable", "connect_timeout=10"}},
		{url: "postgresql://rc@db1/rangecopy", dialect: Postgres, dsnHas: []string{"postgres://rc@db1/rangecopy"}},
		{url: "", err: "catalog URL is empty"},
		{url: "sqlite://", err: "no SQLite file path"},
		{url: "sqlite://:memory:", err: "in-memory"},
		{url: "sqlite:///x.db?cache=shared", err: `unknown SQLite parameter "cache"`},
		{url: "oracle://db1/x", err: `unknown scheme "oracle"`},
		{url: "mysql://rc:secret@/rangecopy", err: "no host"},
		{url: "mysql://rc:secret@db1:99999/rangecopy", err: `port "99999"`},
		{url: "mysql://rc:secret@db1:3306/", err: "no database name"},
		{url: "mysql://db1:3306/rangecopy", err: "no user"},
		{url: "postgres://rc:secret@db1:5432", err: "no database name"},
		{url: "postgres://rc:secret@:5432/x", err: "no host"},
		{url: "postgres://rc:secret@db1:abc/x", err: "db1:abc"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, err := parseURL(tt.url, 5*time.Second)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseURL(%q) = %v, want an error containing %q", tt.url, err, tt.err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseURL(%q): %v", tt.url, err)
			}
			if got.dialect != tt.dialect {
				t.Errorf("dialect = %s, want %s", got.dialect, tt.dialect)
			}
			for _, s := range tt.dsnHas {
				if !strings.Contains(got.dsn, s) {
					t.Errorf("dsn %q lacks %q", got.dsn, s)
				}
			}
			if strings.Contains(got.redacted, "secret") {
				t.Errorf("redacted %q shows the password", got.redacted)
			}
		})
	}
}

func TestPageSize(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, DefaultPageSize}, {-3, DefaultPageSize}, {1, 1}, {MaxPageSize, MaxPageSize}, {MaxPageSize + 1, MaxPageSize}, {1 << 30, MaxPageSize}} {
		if got := pageSize(tt.in); got != tt.want {
			t.Errorf("pageSize(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestJobStates(t *testing.T) {
	final := map[JobState]bool{StateOf(job.StateDone): true, StateOf(job.StateFailed): true, StateOf(job.StateCancelled): true, JobLost(): true}
	for _, s := range JobStates() {
		if !s.Valid() || s.Final() != final[s] {
			t.Errorf("%s: Valid %v Final %v", s, s.Valid(), s.Final())
		}
		back, err := ParseJobState(s.String())
		if err != nil || back != s {
			t.Errorf("ParseJobState(%q) = %v, %v", s.String(), back, err)
		}
		v, err := s.Value()
		var scanned JobState
		if err != nil || scanned.Scan([]byte(v.(string))) != nil || scanned != s {
			t.Errorf("%s: column value %v, scanned back %v", s, v, scanned)
		}
	}
	for _, bad := range []JobState{{State: 99}, {}, {State: job.StateDone, Lost: true}} {
		if bad.Valid() {
			t.Errorf("%+v is valid", bad)
		}
	}
	if _, err := ParseJobState("finished"); err == nil {
		t.Error("an unknown state parses")
	}
}

func TestRoleAllows(t *testing.T) {
	tests := []struct {
		r, need Role
		want    bool
	}{
		{RoleViewer, RoleViewer, true}, {RoleViewer, RoleOperator, false}, {RoleOperator, RoleViewer, true},
		{RoleOperator, RoleAdmin, false}, {RoleAdmin, RoleOperator, true}, {Role("root"), RoleViewer, false},
		{RoleAdmin, Role("root"), false},
	}
	for _, tt := range tests {
		if got := tt.r.Allows(tt.need); got != tt.want {
			t.Errorf("%s.Allows(%s) = %v, want %v", tt.r, tt.need, got, tt.want)
		}
	}
}
