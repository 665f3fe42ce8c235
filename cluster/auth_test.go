package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
)

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hcc test"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, key
}

func TestTLSAndNKey(t *testing.T) {
	cert, key := selfSigned(t)
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	os.WriteFile(seedFile, seed, 0o600)

	s, err := StartServer(ServerConfig{Listen: "127.0.0.1:0", TLSCert: cert, TLSKey: key, NKeys: []string{pub}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if !strings.HasPrefix(s.URL(), "tls://") {
		t.Errorf("URL %s, want tls://", s.URL())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := Connect(ctx, ConnectConfig{URL: s.URL(), TLSCA: cert}); err == nil {
		t.Error("connected without the NKey")
	}
	if _, err := Connect(ctx, ConnectConfig{URL: s.URL(), NKeySeedFile: seedFile}); err == nil {
		t.Error("connected without trusting the certificate")
	}
	cfg := ConnectConfig{URL: s.URL(), TLSCA: cert, NKeySeedFile: seedFile, Storage: MemoryStorage}
	c, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, err := NewWorker(func() *Client {
		c, err := Connect(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}(), WorkerConfig{Engine: toyEngine{}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go w.Run(wctx)
	j := newToyJob(3, 0)
	out, _, err := c.Submit(ctx, j.key, j.prog, j.in, SubmitOptions{Engine: toyEngine{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.check(out); err != nil {
		t.Fatal(err)
	}
}

func TestListenChecks(t *testing.T) {
	for _, tc := range []struct{ listen, want string }{
		{"4222", "want host:port"},
		{":4222", "name the interface"},
		{"10.1.2.3:4222", "without authentication"},
		{"[::]:4222", "without authentication"},
	} {
		if _, err := StartServer(ServerConfig{Listen: tc.listen}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("listen %q: got %v, want %q", tc.listen, err, tc.want)
		}
	}
	if _, err := StartServer(ServerConfig{Listen: "127.0.0.1:0", NKeys: []string{"SUAB..."}}); err == nil || !strings.Contains(err.Error(), "public user key") {
		t.Errorf("a seed as NKey: got %v", err)
	}
}
