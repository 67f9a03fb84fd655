package testdb

import (
	"context"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Pair is a PostgreSQL primary and a streaming standby started by the test
// itself from the server binaries on this machine, on loopback only, torn
// down when the test ends.
type Pair struct {
	Primary, Standby *Node
	bin              string
	cred             *syscall.Credential
}

// Node is one postmaster the test started and may kill.
type Node struct {
	Dir  string
	Port int
	cmd  *osexec.Cmd
	exit chan struct{}
}

// standbyName is the standby's application_name, as
// synchronous_standby_names names it.
const standbyName = "standby1"

// pgBinaries are the programs a pair needs.
var pgBinaries = []string{"initdb", "pg_ctl", "postgres"}

// Missing skips a test that lacks a real part, except on CI (CI=true),
// which must never pass by skipping.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " on CI")
	}
	t.Skip(why)
}

// serverBin is the one directory holding all of pgBinaries: where pg_ctl on
// PATH really lives (Debian links it from elsewhere, and its programs on
// PATH are wrappers that want a configured cluster), else Debian's
// /usr/lib/postgresql/VERSION/bin, the newest first, as .ci/postgres looks.
func serverBin(t testing.TB) string {
	t.Helper()
	var dirs []string
	if p, err := osexec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(debian)))
	dirs = append(dirs, debian...)
	for _, d := range dirs {
		if hasAll(d) {
			return d
		}
	}
	Missing(t, "no PostgreSQL server binaries ("+strings.Join(pgBinaries, ", ")+") on PATH or under /usr/lib/postgresql/*/bin")
	return ""
}

func hasAll(dir string) bool {
	for _, b := range pgBinaries {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

// StartPair starts a primary and a standby streaming from it. With sync the
// primary waits for the standby to flush every commit
// (synchronous_standby_names names it, synchronous_commit=on); without, it
// acknowledges commits on its own flush (synchronous_commit=local) and the
// standby trails behind. Either way it returns once the standby streams, in
// the state asked for.
func StartPair(t testing.TB, sync bool) *Pair {
	t.Helper()
	p := &Pair{bin: serverBin(t)}
	root, err := memoryTemp("pgpair")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	p.cred = runAs(t, root)
	p.Primary = &Node{Dir: filepath.Join(root, "primary"), Port: FreePort(t)}
	p.Standby = &Node{Dir: filepath.Join(root, "standby"), Port: FreePort(t)}
	p.initdb(t, p.Primary.Dir)
	syncNames, commit := "", "local"
	if sync {
		syncNames, commit = standbyName, "on"
	}
	// The standby is a copy of the same template, not a base backup of
	// the running primary: a cold copy of a cluster shut down cleanly is a
	// backup of it as good as pg_basebackup's (the same system identifier,
	// consistent at its shutdown checkpoint), and the standby streams
	// everything after that checkpoint from the primary's pg_wal. It saves
	// pg_basebackup's checkpoint and its second copy through a walsender.
	p.initdb(t, p.Standby.Dir)
	p.start(t, p.Primary, root, "-c", "synchronous_standby_names="+syncNames, "-c", "synchronous_commit="+commit)
	p.appendFile(t, filepath.Join(p.Standby.Dir, "standby.signal"), "")
	// In postgresql.auto.conf, not on the command line, so CutReplication
	// can take it back with a reload.
	p.appendFile(t, filepath.Join(p.Standby.Dir, "postgresql.auto.conf"), fmt.Sprintf(
		"primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s'\n", p.Primary.Port, standbyName))
	// Promoted, the standby is alone: it must not wait for a standby of its
	// own, or no commit would ever return.
	p.start(t, p.Standby, root, "-c", "synchronous_standby_names=", "-c", "synchronous_commit="+commit)
	want := map[bool]string{true: "sync", false: "async"}[sync]
	p.poll(t, "the standby streaming as "+want, func(ctx context.Context) (bool, error) {
		var state string
		err := queryRow(ctx, p.Primary.DSN(), `SELECT sync_state FROM pg_stat_replication
			WHERE application_name = $1 AND state = 'streaming'`, []any{standbyName}, &state)
		return err == nil && state == want, nil
	})
	return p
}

// cluster is the data directory initdb made once for this process: every
// pair's primary is a copy of it, as initdb gives every cluster the same
// files (its catalogs, the trust authentication) and a copy costs a tenth
// of its CPU.
var cluster struct {
	sync.Mutex
	dir string
}

// initdb makes dir a new cluster: a copy of the process's template, made
// on first use. The template lives where the pairs do (memoryTemp) and is
// removed by TestMain's caller (RemoveTemplate).
func (p *Pair) initdb(t testing.TB, dir string) {
	t.Helper()
	cluster.Lock()
	defer cluster.Unlock()
	if cluster.dir == "" {
		root, err := memoryTemp("pgtemplate")
		if err != nil {
			t.Fatal(err)
		}
		if p.cred != nil {
			if err := os.Chown(root, int(p.cred.Uid), int(p.cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
		tmpl := filepath.Join(root, "cluster")
		// Segments of 1 MB, not 16: every copy of the cluster copies one,
		// and a primary zero-fills each new one.
		p.run(t, "initdb", "-D", tmpl, "-U", "postgres", "--auth=trust", "--no-sync", "--wal-segsize=1")
		cluster.dir = tmpl
	}
	// cp -a keeps the owner (the PostgreSQL user) and the 0700 mode
	// postgres insists on.
	if out, err := osexec.Command("cp", "-a", cluster.dir, dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the template cluster: %v\n%s", err, out)
	}
}

// RemoveTemplate removes the template cluster, if one was made: a
// package's TestMain calls it after its tests.
func RemoveTemplate() {
	cluster.Lock()
	defer cluster.Unlock()
	if cluster.dir != "" {
		os.RemoveAll(filepath.Dir(cluster.dir))
		cluster.dir = ""
	}
}

// DSN is the application's view: both hosts, primary first, and only a
// read-write one accepted, so after a promotion pgx connects to the standby.
func (p *Pair) DSN() string { return p.dsn("postgres") }

func (p *Pair) dsn(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/%s?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		p.Primary.Port, p.Standby.Port, database)
}

// Database creates a database on the primary, which the standby receives
// as it receives every commit, and returns the DSN naming it as DSN names
// the default one: two workloads failing over on one pair keep their rows
// apart.
func (p *Pair) Database(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.Primary.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	return p.dsn(name)
}

// DSN connects to this node alone.
func (n *Node) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", n.Port)
}

// Kill sends the postmaster SIGKILL, as a machine dying does to it: no
// shutdown checkpoint, nothing more sent to the standby. Its backends see
// the postmaster gone and exit.
func (n *Node) Kill(t testing.TB) {
	t.Helper()
	if err := n.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-n.exit
}

// Promote makes the standby a primary (pg_ctl promote, waiting until it
// accepts writes).
func (p *Pair) Promote(t testing.TB) {
	t.Helper()
	p.run(t, "pg_ctl", "promote", "-w", "-t", "60", "-D", p.Standby.Dir)
}

// CutReplication stops the standby's WAL receiver (its primary_conninfo
// emptied and reloaded) and waits until it is gone: from here on the standby
// receives nothing, whatever the primary commits.
func (p *Pair) CutReplication(t testing.TB) {
	t.Helper()
	conf := filepath.Join(p.Standby.Dir, "postgresql.auto.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if !strings.HasPrefix(l, "primary_conninfo") {
			lines = append(lines, l)
		}
	}
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"primary_conninfo = ''\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Standby.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.poll(t, "the standby's WAL receiver to stop", func(ctx context.Context) (bool, error) {
		var n int
		err := queryRow(ctx, p.Standby.DSN(), `SELECT count(*) FROM pg_stat_wal_receiver`, nil, &n)
		return err == nil && n == 0, nil
	})
}

// start runs a postmaster on n, on loopback only, and waits until it
// accepts connections. fsync is off: the tests kill processes, not the
// machine, and the page cache outlives a killed process. Its dynamic
// shared memory is files in its data directory, not segments in /dev/shm,
// which a SIGKILLed postmaster never removes: they went when the test did.
// Its max_connections and max_wal_senders are the template's (initdb's
// postgresql.conf), as the template's pg_control records them: a hot
// standby copied from it refuses to run below them.
func (p *Pair) start(t testing.TB, n *Node, sockets string, extra ...string) {
	t.Helper()
	args := append([]string{"-D", n.Dir, "-p", strconv.Itoa(n.Port), "-k", sockets,
		"-c", "listen_addresses=127.0.0.1", "-c", "shared_buffers=16MB",
		"-c", "wal_level=replica", "-c", "hot_standby=on", "-c", "fsync=off",
		"-c", "dynamic_shared_memory_type=mmap"}, extra...)
	log, err := os.Create(filepath.Join(filepath.Dir(n.Dir), filepath.Base(n.Dir)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	n.cmd = p.command("postgres", args...)
	n.cmd.Stdout, n.cmd.Stderr = log, log
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.exit = make(chan struct{})
	go func() { _ = n.cmd.Wait(); log.Close(); close(n.exit) }()
	t.Cleanup(func() {
		// SIGQUIT is PostgreSQL's immediate shutdown: its children go too.
		_ = n.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-n.exit:
		case <-time.After(20 * time.Second):
			_ = n.cmd.Process.Kill()
			<-n.exit
		}
	})
	p.poll(t, "PostgreSQL on port "+strconv.Itoa(n.Port)+" (log: "+log.Name()+")", func(ctx context.Context) (bool, error) {
		select {
		case <-n.exit:
			return false, fmt.Errorf("postgres exited; see %s", log.Name())
		default:
		}
		var one int
		return queryRow(ctx, n.DSN(), `SELECT 1`, nil, &one) == nil, nil
	})
}

// poll checks cond every 100 ms for up to a minute: a loaded machine is slow
// to start a cluster, and a minute bounds a test that would otherwise hang.
func (p *Pair) poll(t testing.TB, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	for range 600 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ok, err := cond(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}

func queryRow(ctx context.Context, dsn, q string, args []any, dest ...any) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, q, args...).Scan(dest...)
}

// run runs one of the binaries to completion.
func (p *Pair) run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := p.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func (p *Pair) command(name string, args ...string) *osexec.Cmd {
	cmd := osexec.Command(filepath.Join(p.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// runAs is the user to run PostgreSQL as, owning dir: PostgreSQL refuses to
// run as root, so as root it is the postgres user, as in .ci/postgres.
func runAs(t testing.TB, dir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		Missing(t, "running as root with no postgres user to run PostgreSQL as (.ci/postgres creates one)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// appendFile appends text to a file of a data directory, which the
// PostgreSQL user must own.
func (p *Pair) appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err == nil && p.cred != nil {
		err = f.Chown(int(p.cred.Uid), int(p.cred.Gid))
	}
	if err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// FreePort is a loopback port nothing listens on.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
