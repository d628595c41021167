package main

// A real `relay serve` for the end-to-end test, and an HTTPS receiver it
// delivers to: a test CA made here (crypto/x509), which Relay is told to
// trust (RELAY_OUTBOUND__EXTRA_CA_CERTS), and loopback allowed through the
// operator's allow list on the receiver's port only.
//
// The binary is $RELAY_TEST_RELAY_BIN (scripts/test builds it and exports
// it). Without it the test says SKIPPED, which RELAY_TEST_REQUIRE_ALL=1 (CI)
// makes a failure.

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// relayBinary is $RELAY_TEST_RELAY_BIN; without it the test is SKIPPED
// (scripts/test lists it with the other skips), or fails under
// RELAY_TEST_REQUIRE_ALL=1.
func relayBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("RELAY_TEST_RELAY_BIN")
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("RELAY_TEST_RELAY_BIN=%s: %v (cargo build -p relay)", bin, err)
		}
		return bin
	}
	why := "RELAY_TEST_RELAY_BIN is not set (scripts/test sets it; or cargo build -p relay and point it at target/debug/relay)"
	if os.Getenv("RELAY_TEST_REQUIRE_ALL") == "1" {
		t.Fatalf("RELAY_TEST_REQUIRE_ALL=1 and this test would be SKIPPED: %s", why)
	}
	t.Skipf("SKIPPED: %s", why)
	return ""
}

type delivery struct {
	header http.Header
	body   []byte
}

// receiver is an HTTPS server on loopback that answers 204 and hands over
// every request; ca is the PEM of the CA that signed its certificate.
type receiver struct {
	server    *httptest.Server
	url       string
	port      int
	ca        []byte
	delivered chan delivery
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	caCert, leaf := testCertificates(t)
	r := &receiver{ca: caCert, delivered: make(chan delivery, 16)}
	r.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.delivered <- delivery{req.Header.Clone(), body}
		w.WriteHeader(http.StatusNoContent)
	}))
	r.server.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	r.server.StartTLS()
	t.Cleanup(r.server.Close)
	_, port, _ := net.SplitHostPort(r.server.Listener.Addr().String())
	r.port, _ = strconv.Atoi(port)
	r.url = fmt.Sprintf("https://127.0.0.1:%d/webhooks", r.port)
	return r
}

// testCertificates makes a CA (returned as PEM) and a leaf for 127.0.0.1
// it signed. Relay's TLS refuses a CA certificate as a server's, so the
// leaf is not httptest's own (self-signed, a CA).
func testCertificates(t *testing.T) ([]byte, tls.Certificate) {
	t.Helper()
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "relay-go test CA"},
		NotBefore:             now.Add(-5 * time.Minute),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(2),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:             now.Add(-5 * time.Minute),
		NotAfter:              now.Add(24 * time.Hour),
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return caPEM, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
}

const operatorToken = "rop_sdk_go_5e2b8d1c7a9f3e6b4d0c81"

// relayServer is `relay serve` on a free loopback port with SQLite in a
// temporary directory; url is where it listens.
type relayServer struct {
	url string
}

func startRelay(t *testing.T, bin string, r *receiver) *relayServer {
	t.Helper()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, r.ca, 0o600); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RELAY_") || strings.HasPrefix(kv, "RELAY_TEST_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"RELAY_OPERATOR_TOKEN="+operatorToken,
		"RELAY_OUTBOUND__ALLOW_CIDRS=127.0.0.1/32",
		"RELAY_OUTBOUND__ALLOW_PORTS="+strconv.Itoa(r.port),
		"RELAY_OUTBOUND__EXTRA_CA_CERTS="+caFile,
		"RELAY_LOG=warn",
	)
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	cmd.Env = env
	var logs bytes.Buffer
	cmd.Stderr = &logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("relay's log:\n%s", logs.String())
		}
	})
	lines := bufio.NewScanner(stdout)
	s := &relayServer{}
	for lines.Scan() {
		if rest := strings.TrimPrefix(lines.Text(), "Relay listening on "); rest != lines.Text() {
			s.url = strings.Fields(rest)[0]
			break
		}
	}
	if s.url == "" {
		t.Fatalf("relay serve did not start: %s", logs.String())
	}
	// Keep draining stdout so Relay never blocks on a full pipe.
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return s
}

// operator calls the operator API (plain net/http: the SDK is the tenant's).
func (s *relayServer) operator(t *testing.T, method, path string, body any, out any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+operatorToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, answer)
	}
	if err := json.Unmarshal(answer, out); err != nil {
		t.Fatal(err)
	}
}

// apiKey is a live API key of a new tenant (the operator's part, not the SDK's).
func (s *relayServer) apiKey(t *testing.T) string {
	t.Helper()
	var tenant struct{ ID string }
	s.operator(t, "POST", "/v1/tenants", map[string]any{"name": "acme"}, &tenant)
	var key struct{ Key string }
	s.operator(t, "POST", "/v1/tenants/"+tenant.ID+"/api-keys", map[string]any{"environment": "live"}, &key)
	return key.Key
}
