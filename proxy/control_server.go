package proxy

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// The control server's bounds. The control API is a handful of small calls (the CLI makes
// one connection per call, a Prometheus scrape one per scrape): the bounds are generous for
// that and small against a flood, which must never take the descriptors the data path needs.
const (
	// maxControlConns caps the control connections held at once; at the cap a new one
	// evicts the oldest that is not serving a request (see connLimiter). 64 leaves room for
	// dozens of concurrent callers and costs at most 64 descriptors, a small part of even a
	// 1,024-descriptor process.
	maxControlConns = 64
	// controlReadHeaderTimeout bounds the wait for a whole request header, from the accept
	// or from the end of the previous request's body: a local or LAN caller sends it at once.
	controlReadHeaderTimeout = 5 * time.Second
	// controlReadTimeout bounds reading a whole request, header and body (at most 4 KiB).
	controlReadTimeout = 10 * time.Second
	// controlWriteTimeout bounds the handling and the reply: setting blackhole may take up
	// to holeFillTimeout (5 s); a reply is a few KiB.
	controlWriteTimeout = 30 * time.Second
	// controlIdleTimeout closes a keep-alive connection idle this long.
	controlIdleTimeout = 30 * time.Second
	// controlMaxHeaderBytes bounds a request header (the default is 1 MiB).
	controlMaxHeaderBytes = 16 << 10
	// controlShutdown is how long calls in progress may finish once ServeControl stops.
	controlShutdown = 5 * time.Second
)

// ServeControl serves the control API (Handler(token)) on ln until ctx is done, then gives
// the calls in progress up to 5 s to finish, closes every control connection and ln, and
// returns nil. It returns early with an error if ln fails, or at once if the token is not
// one CleanToken accepts, or if ln is a TCP listener off loopback and the token is empty:
// anyone who reaches the control API can break the database links.
//
// The server is bounded so that no caller can starve the data path: at most 64 control
// connections at once (at the cap a new connection evicts the oldest one that is not
// serving a request, so a prompt caller gets through a flood of idle connections), 5 s to
// send a request header, 10 s to send a whole request, 30 s to handle and answer it, 30 s
// idle between keep-alive requests, 16 KiB of header, 4 KiB of body; a 401 closes the
// connection.
func (p *Proxy) ServeControl(ctx context.Context, ln net.Listener, token string) error {
	clean, err := CleanToken(token)
	if err != nil {
		ln.Close()
		return err
	}
	if a, ok := ln.Addr().(*net.TCPAddr); ok && !a.IP.IsLoopback() && clean == "" {
		ln.Close()
		return fmt.Errorf("control API on %s: not a loopback address, and no control token", a)
	}
	return p.serveBounded(ctx, ln, p.Handler(clean), "control")
}

// serveBounded serves h on ln with the control server's bounds until ctx is done, then shuts
// down as ServeControl does; component names it in the log and in its errors.
func (p *Proxy) serveBounded(ctx context.Context, ln net.Listener, h http.Handler, component string) error {
	lim := newConnLimiter(ln, maxControlConns)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: controlReadHeaderTimeout,
		ReadTimeout:       controlReadTimeout,
		WriteTimeout:      controlWriteTimeout,
		IdleTimeout:       controlIdleTimeout,
		MaxHeaderBytes:    controlMaxHeaderBytes,
		ConnState:         lim.track,
		ErrorLog:          log.New(logWriter{p.log, component}, "", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lim) }()
	select {
	case err := <-served:
		return fmt.Errorf("%s: %w", component, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), controlShutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("%s: %w", component, err)
	}
	return nil
}

// logWriter sends the HTTP server's own messages (accept errors and the like) to the
// proxy's log as warnings.
type logWriter struct {
	log       zerolog.Logger
	component string
}

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Warn().Str("component", w.component).Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
