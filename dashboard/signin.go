package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
)

// Sessions keeps the dashboard's sign-ins. A sign-in with a token secret opens a session;
// the browser's cookie holds the session's id, never the secret, and every later request
// finds its principal by that id.
type Sessions interface {
	// SignIn checks a token secret and opens a session of its token, returning the
	// session's id and its holder; ErrUnauthenticated if the secret is no valid token's.
	SignIn(ctx context.Context, secret string) (id string, p Principal, err error)
	// Session returns the holder of a session; ErrUnauthenticated if the session is
	// unknown, has ended, or its token is no longer valid.
	Session(ctx context.Context, id string) (Principal, error)
	// SignOut ends a session; an unknown one is no error.
	SignOut(ctx context.Context, id string) error
}

// memSessions keeps sessions in this process's memory, each with the secret it was opened
// with, checked again through the Source on every use: a revoked token's sessions end. They
// end too when the process does, and other processes do not know them; a server keeps its
// sessions in its catalog instead.
type memSessions struct {
	src Source
	mu  sync.Mutex
	ids map[string]string // session id → token secret
}

func newMemSessions(src Source) *memSessions { return &memSessions{src: src, ids: map[string]string{}} }

func (m *memSessions) SignIn(ctx context.Context, secret string) (string, Principal, error) {
	p, err := m.src.Authenticate(ctx, secret)
	if err != nil {
		return "", Principal{}, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", Principal{}, fmt.Errorf("dashboard: random session id: %w", err)
	}
	id := base64.RawURLEncoding.EncodeToString(raw)
	m.mu.Lock()
	m.ids[id] = secret
	m.mu.Unlock()
	return id, p, nil
}

func (m *memSessions) Session(ctx context.Context, id string) (Principal, error) {
	m.mu.Lock()
	secret, ok := m.ids[id]
	m.mu.Unlock()
	if !ok {
		return Principal{}, fmt.Errorf("%w: no such session", ErrUnauthenticated)
	}
	return m.src.Authenticate(ctx, secret)
}

func (m *memSessions) SignOut(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.ids, id)
	m.mu.Unlock()
	return nil
}
