package hbase

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/user"
)

// AuthMethod is the authentication byte of the connection preamble.
type AuthMethod byte

// Authentication methods known to HBase (AuthMethod.java).
const (
	AuthSimple   AuthMethod = 80
	AuthKerberos AuthMethod = 81
	AuthDigest   AuthMethod = 82
)

// String returns HBase's name for the method.
func (m AuthMethod) String() string {
	switch m {
	case AuthSimple:
		return "SIMPLE"
	case AuthKerberos:
		return "KERBEROS"
	case AuthDigest:
		return "DIGEST"
	}
	return fmt.Sprintf("AuthMethod(%d)", byte(m))
}

// Authenticator sets up the security of a new connection. Simple is the
// only implementation so far; a SASL (Kerberos) one would run its exchange in
// Handshake right after the preamble and may wrap the connection.
type Authenticator interface {
	// Method is the byte sent in the preamble.
	Method() AuthMethod
	// EffectiveUser is the user the server runs calls as.
	EffectiveUser() string
	// Handshake runs after the preamble and before the ConnectionHeader is
	// sent, and returns the connection to use from then on.
	Handshake(ctx context.Context, c net.Conn, server ServerName) (net.Conn, error)
}

// Simple is SIMPLE authentication: the server trusts the user name it is sent.
type Simple struct {
	User string
}

// Method returns AuthSimple.
func (s Simple) Method() AuthMethod { return AuthSimple }

// EffectiveUser returns s.User.
func (s Simple) EffectiveUser() string { return s.User }

// Handshake does nothing: SIMPLE has no exchange.
func (s Simple) Handshake(_ context.Context, c net.Conn, _ ServerName) (net.Conn, error) {
	return c, nil
}

// DefaultUser is the HBase effective user and HDFS user a client acts as
// when none is given, picked as Hadoop's clients pick it under simple
// authentication: $HADOOP_USER_NAME, else the OS user running this process
// ($USER or $LOGNAME when the user database does not know it), else "root".
// It is the one place rangecopy works the default user out.
func DefaultUser() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	for _, k := range []string{"USER", "LOGNAME"} {
		if u := os.Getenv(k); u != "" {
			return u
		}
	}
	return "root"
}
