package readers_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
// the test ends, and returns its base URL and the path of its access log.
func startNginx(t *testing.T, upstream string) (base, accessLog string) {
	t.Helper()
	exe := need(t, "nginx", "/usr/sbin/nginx") // root's PATH has /usr/sbin, not every PATH does
	dir := t.TempDir()
	port := freePort(t)
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
	t.Cleanup(func() {
		// SIGQUIT: finish the requests in flight, then exit.
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
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
	return "http://" + addr, filepath.Join(dir, "access.log")
}

// freePort is a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// hostPort is a base URL's host:port.
func hostPort(base string) string {
	return strings.TrimPrefix(base, "http://")
}
