package hbase

import (
	"context"
	"fmt"
	"net"
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

// osUser returns the name of the current OS user, or "root" if it cannot be
// found.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "root"
}
