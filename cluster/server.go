package cluster

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DefaultListen is where an embedded server listens unless told otherwise:
// the loopback interface only, so the default needs no authentication.
const DefaultListen = "127.0.0.1:4222"

// ServerConfig configures an embedded NATS server with JetStream.
type ServerConfig struct {
	// Listen is host:port for client connections ("" = DefaultListen; port 0
	// picks a free port). A host other than a loopback address requires Token
	// or NKeys: evaluation keys and ciphertexts must not be open to the network.
	Listen string
	// StoreDir keeps streams, results and objects on disk, so a restarted
	// server resumes its jobs; "" keeps everything in memory.
	StoreDir string
	// Token, if set, is the secret every client must present.
	Token string
	// NKeys lists the public user NKeys ("U...") allowed to connect; clients
	// sign the server's nonce with the matching seed.
	NKeys []string
	// TLSCert and TLSKey (PEM files) switch the client port to TLS.
	TLSCert, TLSKey string
	// Name is the server's name in logs and monitoring ("" = "hcc").
	Name string
	// Log, if set, sends the server's own log lines to standard error.
	Log bool
}

// Server is an embedded NATS server with JetStream enabled.
type Server struct {
	ns     *server.Server
	memory bool
}

// StartServer starts an embedded NATS server with JetStream and waits until
// it accepts connections. It refuses to listen beyond loopback without
// authentication.
func StartServer(cfg ServerConfig) (*Server, error) {
	listen := cfg.Listen
	if listen == "" {
		listen = DefaultListen
	}
	host, portStr, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %v (want host:port)", listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("listen address %q: bad port", listen)
	}
	if host == "" {
		return nil, fmt.Errorf("listen address %q: name the interface (127.0.0.1 for this host only, 0.0.0.0 for all with --token or --nkey)", listen)
	}
	auth := cfg.Token != "" || len(cfg.NKeys) > 0
	if !isLoopback(host) && !auth {
		return nil, fmt.Errorf("refusing to listen on %s without authentication: give a token or an NKey (evaluation keys and ciphertexts would be open to the network)", listen)
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("TLS needs both a certificate and its private key")
	}
	name := cfg.Name
	if name == "" {
		name = "hcc"
	}
	opts := &server.Options{
		ServerName: name,
		Host:       host,
		Port:       port,
		JetStream:  true,
		NoSigs:     true, // the caller owns signal handling
		NoLog:      !cfg.Log,
		// Task payloads are small; blobs go through the object store in
		// 128 KiB chunks, so the default 1 MiB limit is never the bound.
		MaxPayload: 1 << 20,
	}
	if port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if cfg.StoreDir != "" {
		if err := os.MkdirAll(cfg.StoreDir, 0o700); err != nil {
			return nil, fmt.Errorf("store: %v", err)
		}
		opts.StoreDir = cfg.StoreDir
	} else {
		// Memory only: the streams are created in memory (Storage), and the
		// server's own state goes to a temporary directory removed on Shutdown.
		dir, err := os.MkdirTemp("", "hcc-nats-*")
		if err != nil {
			return nil, err
		}
		opts.StoreDir = dir
	}
	if cfg.Token != "" {
		opts.Authorization = cfg.Token
	}
	for _, k := range cfg.NKeys {
		if !strings.HasPrefix(k, "U") {
			return nil, fmt.Errorf("NKey %q: want a public user key (starts with U)", k)
		}
		opts.Nkeys = append(opts.Nkeys, &server.NkeyUser{Nkey: k})
	}
	if cfg.TLSCert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey})
		if err != nil {
			return nil, fmt.Errorf("TLS: %v", err)
		}
		tc.MinVersion = tls.VersionTLS12
		opts.TLSConfig = tc
		opts.TLSTimeout = 5
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("NATS server: %v", err)
	}
	if cfg.Log {
		ns.ConfigureLogger()
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("NATS server on %s did not start within 10 s (port in use?)", listen)
	}
	return &Server{ns: ns, memory: cfg.StoreDir == ""}, nil
}

// URL is the address clients connect to (nats://host:port, or tls:// with TLS).
func (s *Server) URL() string { return s.ns.ClientURL() }

// Storage is where this server keeps streams: FileStorage with a store
// directory, MemoryStorage without.
func (s *Server) Storage() Storage {
	if s.memory {
		return MemoryStorage
	}
	return FileStorage
}

// Shutdown stops the server and waits until it has stopped; with a store
// directory, everything accepted so far survives for the next start.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	if s.memory {
		os.RemoveAll(s.ns.StoreDir())
	}
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
