// Package lsp is `contractlint lsp`: a language server that shows, in the
// editor and as you type, what the unsaved buffer breaks compared with the
// same file at the base revision. Every comparison goes through
// review.Session, so the findings are review's: same base, rules, config and
// filters. The protocol layer is this package's own (JSON-RPC framing and
// the few LSP types it uses); see docs/lsp.md for why.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/contractlint/contractlint/internal/chain"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Options shape a server.
type Options struct {
	// Configure returns the review options for the work tree at dir (its
	// config, globs and pipeline options), once the client names it, with
	// the config read as base (the ref the client or --base names, "" for
	// the default) holds it, as review reads it; and the chain (internal/
	// chain) the command's findings pass, as review's do.
	Configure func(dir, base string) (review.Options, chain.Chain, error)
	// Base is --base; the client's initializationOptions.base overrides it.
	Base string
	// Debounce is how long the server waits after a change for the next one
	// before it compares, when a comparison runs or is due (a change made
	// while none is is compared at once); zero means 150 ms.
	Debounce time.Duration
	// RulesURL is where a diagnostic's code links to.
	RulesURL string
}

// Serve answers one client on in and out until it exits or closes the
// stream. It returns nil after shutdown and exit, an error otherwise.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Debounce == 0 {
		o.Debounce = 150 * time.Millisecond
	}
	s := &server{o: o, conn: newConn(in, out), docs: map[string]*document{}, byRoot: map[string][]item{},
		shown: map[string][]diagnostic{}, items: map[string][]item{}, isContract: map[string]bool{}, work: make(chan struct{}, 1), dirty: map[string]bool{}, told: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); s.worker(ctx) }()
	err := s.loop()
	cancel()
	<-done
	if s.sess != nil {
		s.sess.Close()
	}
	return err
}

type server struct {
	o    Options
	conn *conn

	mu sync.Mutex
	// sess is nil before initialize, and when no base could be found.
	sess *review.Session
	top  string
	// why is the message shown once after initialize when sess is nil.
	why   string
	docs  map[string]*document // open documents by name (top-relative)
	dirty map[string]bool      // names changed since the last comparison
	timer *time.Timer
	// cancel cancels the comparison running now (nil when none): an edit
	// makes it stale, and the newest text is compared instead.
	cancel    context.CancelFunc
	byRoot    map[string][]item       // what the last comparison of each root found
	shown     map[string][]diagnostic // what each open document shows now
	told      map[string]bool         // messages shown once
	contracts []string                // the work tree's contract files, listed once
	listed    bool
	down      bool // shutdown was asked
	work      chan struct{}
	// items is what each open document shows, with the findings behind it
	// (code actions and hover read them).
	items map[string][]item
	reg   *rules.Registry
	// chain is what every comparison's findings pass before they are
	// shown: the steps review's pass (waivers among them).
	chain chain.Chain
	// snippets is set when the client takes snippet edits: the Accept
	// action then leaves the reason as a tab stop to type over.
	snippets bool
	// isContract remembers, per open document, whether it is a contract:
	// asked once on open, not on every keystroke of a 4 MB document.
	isContract map[string]bool
}

// document is an open buffer.
type document struct {
	uri, name string
	version   int
	text      string
}

// item is one diagnostic and the finding (nil for a load problem) it shows.
type item struct {
	name    string
	diag    diagnostic
	finding *rules.Finding
}

func (s *server) loop() error {
	for {
		m, err := s.conn.read()
		var re *rpcError
		switch {
		case errors.As(err, &re):
			s.conn.reply(json.RawMessage("null"), nil, re)
			continue
		case errors.Is(err, io.EOF):
			return errors.New("the client closed the connection without exit")
		case err != nil:
			return err
		}
		if m.Method == "exit" {
			if s.down {
				return nil
			}
			return errors.New("exit before shutdown")
		}
		result, err := s.handle(m)
		if len(m.ID) > 0 && m.Method != "" {
			s.conn.reply(m.ID, result, err)
		}
	}
}

// handle answers one request or takes one notification; for a
// notification the result is dropped.
func (s *server) handle(m *message) (any, error) {
	s.mu.Lock()
	ready := s.top != ""
	s.mu.Unlock()
	if !ready && m.Method != "initialize" {
		if len(m.ID) == 0 {
			return nil, nil // notifications before initialize are dropped
		}
		return nil, &rpcError{Code: codeNotInitialized, Message: "initialize first"}
	}
	switch m.Method {
	case "initialize":
		var p initializeParams
		if err := unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		return s.initialize(p)
	case "initialized":
		s.mu.Lock()
		why := s.why
		s.mu.Unlock()
		if why != "" {
			s.conn.notify("window/showMessage", showMessageParams{Type: messageError, Message: why})
		}
		return nil, nil
	case "shutdown":
		s.mu.Lock()
		s.down = true
		s.mu.Unlock()
		return nil, nil
	case "textDocument/didOpen":
		var p didOpenParams
		if err := unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		s.open(p.TextDocument)
		return nil, nil
	case "textDocument/didChange":
		var p didChangeParams
		if err := unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		s.change(p)
		return nil, nil
	case "textDocument/didClose":
		var p didCloseParams
		if err := unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		s.close(p.TextDocument.URI)
		return nil, nil
	case "textDocument/didSave", "workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles", "$/cancelRequest", "$/setTrace":
		return nil, nil
	case "textDocument/hover":
		var p hoverParams
		if err := unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		return s.hover(p), nil
	case "textDocument/codeAction":
		var p codeActionParams
		if err := unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		return s.codeActions(p), nil
	}
	if len(m.ID) == 0 {
		return nil, nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "contractlint lsp does not answer " + m.Method}
}

func unmarshal(b json.RawMessage, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	return nil
}

// initialize finds the work tree and opens the review session. A missing
// base is not an error of the request: the server keeps serving and says,
// once, which git command fixes it.
func (s *server) initialize(p initializeParams) (any, error) {
	dir := p.RootPath
	if p.RootURI != "" {
		u, err := url.Parse(p.RootURI)
		if err != nil || u.Scheme != "file" {
			return nil, &rpcError{Code: codeInvalidParams, Message: "rootUri " + p.RootURI + " is not a file URI"}
		}
		dir = filepath.FromSlash(u.Path)
	} else if len(p.WorkspaceFolders) > 0 {
		if u, err := url.Parse(p.WorkspaceFolders[0].URI); err == nil {
			dir = filepath.FromSlash(u.Path)
		}
	}
	if dir == "" {
		return nil, &rpcError{Code: codeInvalidParams, Message: "initialize names no rootUri: open a folder inside a git work tree"}
	}
	base := s.o.Base
	if p.InitializationOptions != nil && p.InitializationOptions.Base != "" {
		base = p.InitializationOptions.Base
	}
	ro, steps, err := s.o.Configure(dir, base)
	if err != nil {
		return nil, &rpcError{Code: codeRequestFailed, Message: err.Error()}
	}
	ro.Dir, ro.Base = dir, base
	sess, err := review.OpenSession(ro)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.top = dir
	var me *review.MissingError
	switch {
	case errors.As(err, &me):
		s.why = "contractlint: " + me.Msg
	case err != nil:
		s.why = "contractlint: " + err.Error()
	default:
		s.sess, s.top = sess, sess.Top()
	}
	s.reg, s.chain = ro.Pipeline.Registry, steps
	s.snippets = p.Capabilities.Workspace.WorkspaceEdit.SnippetEditSupport
	return map[string]any{
		"capabilities": map[string]any{
			"textDocumentSync": map[string]any{"openClose": true, "change": 2}, // incremental
			"hoverProvider":    true,
			"codeActionProvider": map[string]any{
				"codeActionKinds": []string{"quickfix"},
			},
		},
		"serverInfo": map[string]any{"name": "contractlint"},
	}, nil
}

func (s *server) open(d textDocumentItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := uriName(d.URI, s.top)
	if !ok {
		return // outside the work tree: nothing to compare it with
	}
	s.docs[name] = &document{uri: d.URI, name: name, version: d.Version, text: d.Text}
	delete(s.isContract, name)
	s.touch(name)
}

func (s *server) change(p didChangeParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := uriName(p.TextDocument.URI, s.top)
	d := s.docs[name]
	if !ok || d == nil {
		return
	}
	for _, c := range p.ContentChanges {
		t, err := apply(d.text, c)
		if err != nil {
			s.tellOnce(messageError, "contractlint: "+d.name+": "+err.Error()+"; reopen the file")
			return
		}
		d.text = t
	}
	d.version = p.TextDocument.Version
	s.touch(name)
}

func (s *server) close(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := uriName(uri, s.top)
	if !ok {
		return
	}
	delete(s.docs, name)
	delete(s.byRoot, name)
	delete(s.shown, name)
	delete(s.items, name)
	delete(s.isContract, name)
	// What the file's own comparison showed elsewhere goes; the saved file
	// is what the other roots now read.
	s.touch(name)
	s.conn.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Diagnostics: []diagnostic{}})
}

// touch marks name changed and has it compared. A change made while
// nothing is being compared or due is compared at once: an edit after a
// pause waits for no debounce. One made while a comparison runs cancels it
// (what it would show is stale), and one made while a comparison runs or
// is due (re)starts the debounce: typing compares once more, after the
// last key.
func (s *server) touch(name string) {
	s.dirty[name] = true
	busy := len(s.work) > 0 || s.timer != nil && s.timer.Stop()
	if s.cancel != nil {
		s.cancel()
		busy = true
	}
	due := func() {
		select {
		case s.work <- struct{}{}:
		default: // a comparison is already due; it takes this change too
		}
	}
	if !busy {
		due()
		return
	}
	s.timer = time.AfterFunc(s.o.Debounce, due)
}

// tellOnce shows a message the first time only: an editor that repeats a
// bad request is not flooded.
func (s *server) tellOnce(typ int, msg string) {
	if s.told[msg] {
		return
	}
	s.told[msg] = true
	s.conn.notify("window/showMessage", showMessageParams{Type: typ, Message: msg})
}

func (s *server) worker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.work:
			s.compare(ctx)
		}
	}
}

// compare judges every root a changed file touches and publishes what
// changed for every open document. An edit made while it runs cancels it:
// nothing is published, and the names it took are compared again, with
// the newest text, by the run the edit starts.
func (s *server) compare(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	s.mu.Lock()
	sess := s.sess
	if sess == nil {
		s.dirty = map[string]bool{}
		s.mu.Unlock()
		return
	}
	changed := s.dirty
	s.dirty = map[string]bool{}
	s.cancel = cancel
	texts := map[string]string{}
	versions := map[string]int{}
	for name, d := range s.docs {
		texts[name] = d.text
		versions[name] = d.version
	}
	s.mu.Unlock()
	dir, err := source.OpenDir(sess.Top())
	if err != nil {
		s.mu.Lock()
		s.tellOnce(messageError, "contractlint: "+err.Error())
		s.mu.Unlock()
		return
	}
	ov := overlay{Source: dir, texts: texts}
	results := map[string][]item{}
	for root, also := range s.roots(sess, ov, changed) {
		if ctx.Err() != nil {
			break
		}
		results[root] = s.judge(ctx, sess, ov, root, also)
	}
	if s.opened(changed) {
		// The base a just-opened document's edits are compared with loads
		// in the background; its first diagnostics wait for it, so the
		// first edit made after them costs what every later one does.
		sess.Ready(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		for name := range changed {
			s.dirty[name] = true
		}
		return
	}
	for root, items := range results {
		s.byRoot[root] = items
	}
	s.publish(versions, changed)
}

// opened reports whether a name among changed is an open document not
// yet published: this comparison is its first since it was opened.
func (s *server) opened(changed map[string]bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range changed {
		if _, shown := s.shown[name]; !shown && s.docs[name] != nil {
			return true
		}
	}
	return false
}

// roots lists what to compare for the changed files: each one that is a
// contract, and every contract that reaches one through $refs or imports
// (the open ones, and for a file that is no contract of its own, every one
// in the work tree), with the changed .proto imports to compare beside it.
func (s *server) roots(sess *review.Session, ov overlay, changed map[string]bool) map[string][]string {
	out := map[string][]string{}
	s.mu.Lock()
	var open []string
	for name := range s.docs {
		open = append(open, name)
	}
	s.mu.Unlock()
	slices.Sort(open)
	for name := range changed {
		contract := s.contract(sess, ov, name)
		if contract {
			if _, ok := out[name]; !ok {
				out[name] = nil
			}
		}
		candidates := slices.DeleteFunc(slices.Clone(open), func(n string) bool { return n == name || !s.contract(sess, ov, n) })
		if !contract {
			candidates = append(candidates, s.workTreeContracts(sess)...)
		}
		for _, r := range sess.Reaching(ov, candidates, name) {
			// A .proto import of any extension case, as review selects it.
			if strings.EqualFold(path.Ext(name), ".proto") && !slices.Contains(out[r], name) {
				out[r] = append(out[r], name)
			} else if _, ok := out[r]; !ok {
				out[r] = nil
			}
		}
	}
	return out
}

// contract reports whether name is a contract, asked once per open
// document, not on every keystroke of a 4 MB one. A block YAML buffer with
// a top-level openapi key is one even while it does not parse: its parse
// error is what the author needs to see.
func (s *server) contract(sess *review.Session, ov overlay, name string) bool {
	s.mu.Lock()
	c, ok := s.isContract[name]
	_, open := s.docs[name]
	s.mu.Unlock()
	if ok {
		return c
	}
	text, _ := ov.text(name)
	c = open && sess.Selected(name) && topOpenAPI.MatchString(text) || sess.IsContract(ov, name)
	if open {
		s.mu.Lock()
		s.isContract[name] = c
		s.mu.Unlock()
	}
	return c
}

// topOpenAPI finds a block YAML document's top-level openapi key.
var topOpenAPI = regexp.MustCompile(`(?m)^openapi\s*:`)

func (s *server) workTreeContracts(sess *review.Session) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.listed {
		s.listed = true
		names, err := sess.Contracts()
		if err != nil {
			s.tellOnce(messageWarning, "contractlint: listing the work tree's contracts: "+err.Error())
		}
		s.contracts = names
	}
	return s.contracts
}

// judge compares one root and turns what it finds, or the problems that
// kept it from loading, into diagnostics.
func (s *server) judge(ctx context.Context, sess *review.Session, ov overlay, root string, also []string) (items []item) {
	defer func() {
		// A bug in one comparison must not take the editor's server down
		// with it: the author is told, and the next edit is compared anew.
		if v := recover(); v != nil {
			s.mu.Lock()
			s.tellOnce(messageError, fmt.Sprintf("contractlint: comparing %s failed (%v); please report it", root, v))
			s.mu.Unlock()
			items = nil
		}
	}()
	if _, ok := ov.texts[root]; !ok {
		if _, err := ov.Stat(root); err != nil {
			return nil // deleted in the work tree
		}
	}
	fs, err := sess.Judge(ctx, root, ov, also...)
	var ps source.Problems
	switch {
	case ctx.Err() != nil:
		return nil // stale: compare publishes nothing of it
	case errors.As(err, &ps):
		return s.problems(ov, ps)
	case err != nil:
		s.mu.Lock()
		s.tellOnce(messageError, "contractlint: "+root+": "+err.Error())
		s.mu.Unlock()
		return nil
	}
	return s.findings(sess, ov, s.chain.Run(fs).Findings)
}

// problems shows each load problem at its place: a buffer that does not
// parse shows where, and the server goes on.
func (s *server) problems(ov overlay, ps source.Problems) []item {
	var out []item
	for _, p := range ps {
		text, ok := ov.texts[p.File]
		if !ok {
			continue
		}
		out = append(out, item{name: p.File, diag: diagnostic{
			Range: lineSpan(text, p.Line, p.Column), Severity: severityError, Code: "contract-unreadable",
			CodeDescription: s.link(), Source: "contractlint", Message: p.Msg,
		}})
	}
	return out
}

func (s *server) link() *codeDescription {
	if s.o.RulesURL == "" {
		return nil
	}
	return &codeDescription{Href: s.o.RulesURL}
}

// findings turns findings into diagnostics in the open documents they
// point into.
func (s *server) findings(sess *review.Session, ov overlay, fs []rules.Finding) []item {
	var out []item
	seen := map[string]*places{}
	for i := range fs {
		f := &fs[i]
		name := f.Where.File
		text, ok := ov.texts[name]
		if !ok {
			continue
		}
		pl := seen[name]
		if pl == nil {
			pl = newPlaces(text)
			seen[name] = pl
		}
		var at span
		if f.Removed {
			at = enclosing(text, f)
		} else {
			at = lineSpan(text, f.Where.Line, f.Where.Column)
		}
		d := diagnostic{Range: at, Severity: severity(f.Severity), Code: f.Rule, CodeDescription: s.link(),
			Source: "contractlint", Message: f.Message, Data: &diagnosticData{Path: f.Path, Removed: f.Removed}}
		uri := nameURI(name, sess.Top())
		for i, op := range f.Operations {
			if i == maxRelated && len(f.Operations) > maxRelated+1 {
				d.RelatedInformation = append(d.RelatedInformation, relatedInfo{Location: location{URI: uri, Range: at},
					Message: fmt.Sprintf("and %d more operations", len(f.Operations)-maxRelated)})
				break
			}
			d.RelatedInformation = append(d.RelatedInformation, relatedInfo{
				Location: location{URI: uri, Range: pl.operationSpan(f.Format, op, at)},
				Message:  "reaches " + op,
			})
		}
		out = append(out, item{name: name, diag: d, finding: f})
	}
	return out
}

// maxRelated bounds the operations listed per diagnostic: a shared schema
// of a large API reaches hundreds, which no editor shows usefully.
const maxRelated = 20

func severity(s rules.Severity) int {
	switch s {
	case rules.Error:
		return severityError
	case rules.Warning:
		return severityWarning
	}
	return severityInformation
}

// publish sends each open document's diagnostics when they changed, or
// when the document itself did (the client then knows they are current).
func (s *server) publish(versions map[string]int, changed map[string]bool) {
	for name, d := range s.docs {
		var ds []diagnostic
		var its []item
		seen := map[string]bool{}
		roots := make([]string, 0, len(s.byRoot))
		for r := range s.byRoot {
			roots = append(roots, r)
		}
		slices.Sort(roots)
		for _, r := range roots {
			for _, it := range s.byRoot[r] {
				if it.name != name {
					continue
				}
				k := fmt.Sprint(it.diag.Code, it.diag.Range, it.diag.Message)
				if !seen[k] {
					seen[k] = true
					ds = append(ds, it.diag)
					its = append(its, it)
				}
			}
		}
		// The Accept action's placeholder is marked wherever it is left,
		// whether or not the comparison could load the file.
		ds = append(ds, placeholders(d.text)...)
		if ds == nil {
			ds = []diagnostic{}
		}
		s.items[name] = its
		old, had := s.shown[name]
		if had && !changed[name] && sameDiagnostics(old, ds) {
			continue
		}
		s.shown[name] = ds
		v := versions[name]
		s.conn.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: ds})
	}
}

func sameDiagnostics(a, b []diagnostic) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
