package readers_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

// accessLogFormat is the JSON access log an operator would configure:
// nginx's own variable names, escaped for JSON, with the request body
// (which nginx holds once it has read it to proxy it) and the time in
// seconds with milliseconds.
const accessLogFormat = `log_format evidence escape=json '{"msec":$msec,"request_method":"$request_method",' ` +
	`'"request_uri":"$request_uri","status":$status,"http_user_agent":"$http_user_agent",' ` +
	`'"upstream_addr":"$upstream_addr","request_body":"$request_body"}';`

// nginxConf runs one process in the foreground with every file it
// writes under dir, proxying HTTP/1.1 to upstream.
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log info;
events { worker_connections 64; }
http {
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	client_body_buffer_size 64k;
	%[4]s
	access_log %[1]s/access.log evidence;
	server {
		listen 127.0.0.1:%[2]d;
		location / {
			proxy_pass http://%[3]s;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
		}
	}
}
`

// startNginx starts Debian's nginx in front of upstream (host:port) until
// stop or the test's end, and returns its base URL and the path of its
// access log. nginx logs a request after it has answered it: the log is
// complete once stop returns.
func startNginx(t *testing.T, upstream string) (base, accessLog string, stop func()) {
	t.Helper()
	exe := need(t, "nginx", "/usr/sbin/nginx") // root's PATH has /usr/sbin, not every PATH does
	dir := t.TempDir()
	port := testdb.FreePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	write(t, conf, fmt.Sprintf(nginxConf, dir, port, upstream, accessLogFormat))
	// -e: the error log from the start, before the configuration names
	// one, so nothing is written outside dir.
	if out, err := exec.Command(exe, "-t", "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(exe, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf)
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); out.Close(); close(exited) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			// SIGQUIT: finish the requests in flight, log them, exit.
			_ = cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
	}
	t.Cleanup(stop)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ {
		select {
		case <-exited:
			t.Fatalf("nginx exited:\n%s%s", read(t, out.Name()), read(t, filepath.Join(dir, "error.log")))
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if i == 600 {
			t.Fatalf("nginx does not listen on %s after a minute", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "http://" + addr, filepath.Join(dir, "access.log"), stop
}

// hostPort is a base URL's host:port.
func hostPort(base string) string {
	return strings.TrimPrefix(base, "http://")
}

// TestNginxLogIsEvidence: a real nginx in front of the server, with a JSON
// log_format, writes one JSON object a line for every request, with the
// consumer's User-Agent and the JSON request body of every POST, HTTP and
// Connect alike; and that access log is evidence for contractlint as the
// server's traces are (gRPC aside: this nginx proxies HTTP/1.1), and more:
// it has the bodies, so removing the request field description, which the
// charge client sent twice, is an error.
func TestNginxLogIsEvidence(t *testing.T) {
	dir := workspace(t)
	upstream, _ := chargetest.Start(t, apiKeys)
	base, accessLog, stop := startNginx(t, hostPort(upstream))
	tr := drive(t, base, connectClient(base))
	stop()
	f, err := os.Open(accessLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	agents := map[string]int{}
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var rec struct {
			Msec          float64
			RequestMethod string `json:"request_method"`
			RequestURI    string `json:"request_uri"`
			Status        int
			UserAgent     string `json:"http_user_agent"`
			RequestBody   string `json:"request_body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v: %s", n+1, err, sc.Text())
		}
		agents[rec.UserAgent]++
		if rec.RequestMethod == "POST" && !json.Valid([]byte(rec.RequestBody)) {
			t.Errorf("line %d: POST %s without its JSON body: %q", n+1, rec.RequestURI, rec.RequestBody)
		}
		if rec.Msec <= 0 || rec.Status == 0 {
			t.Errorf("line %d: no time or status: %s", n+1, sc.Text())
		}
	}
	if n != tr.requests {
		t.Errorf("%d lines for %d requests", n, tr.requests)
	}
	if agents[chargeclient.UserAgent] != 2 || agents[reportsUA] != 3 || agents[appUA] != 3 {
		t.Errorf("requests by User-Agent: %v", agents)
	}

	write(t, filepath.Join(dir, "access.log.jsonl"), read(t, accessLog))
	// The removed request field, in the bodies nginx logged: the charge
	// client always sends description, the Connect client did once.
	show := readersShow(t, dir, "access.log.jsonl")
	if n := show.sent(chargeclient.UserAgent, "POST /v1/charges", "description"); n != 2 {
		t.Errorf("contractlint readers shows description sent %d times by the charge client, want 2", n)
	}
	if n := show.sent(appUA, "POST /contractlint.charges.v1.ChargeService/CreateCharge", "description"); n != 1 {
		t.Errorf("contractlint readers shows description sent %d times by %s, want once", n, appUA)
	}
	wantEvidence(t, dir, "access.log.jsonl", tr.reads[reportsUA], reportsUA, tr.rpcReads, appUA, tr.requests, 3, 2, chargeclient.UserAgent)
}
