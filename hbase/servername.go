package hbase

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ServerName identifies a region server or master: host, RPC port and start
// code (the start time that tells restarts of the same host:port apart).
type ServerName struct {
	Host      string
	Port      int
	StartCode uint64
}

// Addr returns "host:port".
func (s ServerName) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// String returns HBase's form "host,port,startcode".
func (s ServerName) String() string {
	return s.Host + "," + strconv.Itoa(s.Port) + "," + strconv.FormatUint(s.StartCode, 10)
}

// IsZero reports whether s is unset.
func (s ServerName) IsZero() bool { return s.Host == "" && s.Port == 0 }

// ParseServerName parses "host,port,startcode" (as in ZooKeeper's rs znodes
// and HBase logs) or "host:port" (as in hbase:meta's info:server).
func ParseServerName(s string) (ServerName, error) {
	if parts := strings.Split(s, ","); len(parts) == 3 {
		port, err := parsePort(parts[1])
		if err != nil {
			return ServerName{}, fmt.Errorf("server name %q: %w", s, err)
		}
		sc, err := strconv.ParseUint(parts[2], 10, 64)
		if err != nil {
			return ServerName{}, fmt.Errorf("server name %q: bad start code: %w", s, err)
		}
		if parts[0] == "" {
			return ServerName{}, fmt.Errorf("server name %q: empty host", s)
		}
		return ServerName{Host: parts[0], Port: port, StartCode: sc}, nil
	}
	host, p, err := net.SplitHostPort(s)
	if err != nil {
		return ServerName{}, fmt.Errorf("server name %q: %w", s, err)
	}
	port, err := parsePort(p)
	if err != nil {
		return ServerName{}, fmt.Errorf("server name %q: %w", s, err)
	}
	if host == "" {
		return ServerName{}, fmt.Errorf("server name %q: empty host", s)
	}
	return ServerName{Host: host, Port: port}, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p <= 0 || p > 65535 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return p, nil
}
