package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// certStamp identifies a version of the certificate and key files: their modification times
// and sizes. A replaced file (written in place, renamed over, or a Kubernetes Secret's
// symlink swapped) changes it.
type certStamp struct {
	certMod, keyMod   time.Time
	certSize, keySize int64
}

// certFiles is the pair of PEM files a server serves TLS with, and the certificate last
// loaded from them. Every handshake asks it for the certificate: it looks at the files'
// stamp (two stats) and loads them again when they changed. A pair that does not load (a
// half-written file, a key of another certificate) leaves the last good certificate in
// service and is logged once per version of the files.
type certFiles struct {
	certFile, keyFile string
	log               *slog.Logger

	mu        sync.Mutex
	cert      *tls.Certificate
	loaded    certStamp // the files' stamp when cert was loaded
	failed    certStamp // the stamp of the last version that did not load
	failedMsg string    // and why, as logged
}

// loadCertFiles loads the certificate and key, or says why they do not load.
func loadCertFiles(certFile, keyFile string, log *slog.Logger) (*certFiles, error) {
	c := &certFiles{certFile: certFile, keyFile: keyFile, log: log}
	st, err := c.stamp()
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s / --tls-key %s: %w", certFile, keyFile, err)
	}
	c.cert, c.loaded = &cert, st
	return c, nil
}

// stamp reads the files' stamp.
func (c *certFiles) stamp() (certStamp, error) {
	cs, err := os.Stat(c.certFile)
	if err != nil {
		return certStamp{}, fmt.Errorf("--tls-cert: %w", err)
	}
	ks, err := os.Stat(c.keyFile)
	if err != nil {
		return certStamp{}, fmt.Errorf("--tls-key: %w", err)
	}
	return certStamp{certMod: cs.ModTime(), keyMod: ks.ModTime(), certSize: cs.Size(), keySize: ks.Size()}, nil
}

// reloadDue decides whether files of stamp now are worth loading: they changed since the
// certificate in service was loaded, and are not the version that failed last (which is
// tried again only when forced, on SIGHUP).
func reloadDue(now, loaded, failed certStamp, force bool) bool {
	if force {
		return true
	}
	return now != loaded && now != failed
}

// getCertificate is tls.Config.GetCertificate: the certificate in service, reloaded first
// if the files changed.
func (c *certFiles) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.reload(false)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cert, nil
}

// reload loads the files again if they changed (or if force) and reports whether the
// certificate in service changed. A pair that does not load keeps the one in service; its
// error is logged once per version of the files (and on every forced reload).
func (c *certFiles) reload(force bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := c.stamp()
	if err == nil && !reloadDue(st, c.loaded, c.failed, force) {
		return false
	}
	if err == nil {
		var cert tls.Certificate
		if cert, err = tls.LoadX509KeyPair(c.certFile, c.keyFile); err == nil {
			c.cert, c.loaded, c.failed, c.failedMsg = &cert, st, certStamp{}, ""
			c.log.Info("TLS certificate reloaded", "cert", c.certFile, "key", c.keyFile, "expires", leafExpiry(&cert))
			return true
		}
	}
	if msg := err.Error(); force || st != c.failed || msg != c.failedMsg {
		c.log.Error("TLS certificate files changed but do not load; still serving the previous certificate",
			"cert", c.certFile, "key", c.keyFile, "err", err)
		c.failed, c.failedMsg = st, msg
	}
	return false
}

// leafExpiry is when a certificate expires, zero if unknown.
func leafExpiry(c *tls.Certificate) time.Time {
	if c.Leaf == nil {
		return time.Time{}
	}
	return c.Leaf.NotAfter
}

// reloadCertsOnHangup loads the certificate files again on every SIGHUP (even if their
// stamps look unchanged), until ctx ends. Handshakes reload changed files by themselves;
// SIGHUP is for an operator who wants it now, and to retry a pair that failed. Without TLS
// a SIGHUP (systemctl reload) is noted and otherwise ignored, not fatal.
func (s *Server) reloadCertsOnHangup(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if s.certs == nil {
				s.cfg.Logger.Info("SIGHUP: no TLS certificate to reload")
				continue
			}
			s.cfg.Logger.Info("SIGHUP: reloading the TLS certificate", "cert", s.certs.certFile)
			s.certs.reload(true)
		}
	}
}

// CheckTLS loads a TLS certificate and key as New does, so that a caller that waits for
// ZooKeeper or the catalog before New finds a bad pair at once.
func CheckTLS(cert, key string) error {
	_, err := loadCertFiles(cert, key, slog.New(slog.DiscardHandler))
	return err
}
