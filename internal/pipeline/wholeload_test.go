package pipeline_test

import (
	"crypto/sha256"
	"sync"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// stripeName is the Stripe spec the tests edit (see stripeSpec).
const stripeName = "stripe-spec3-2023-09-12.yaml"

// sharedDocs are the documents the reference run (wholeDiff) loads whole
// again and again: Stripe's spec is the unchanged side of every edit the
// tests make of it, and the new side of a day's change. kin-openapi's load
// of it was most of the package's CPU, so each is loaded once per package
// run, on first use, and kept (about 50 MB); a document compared once is
// loaded and dropped as before.
var sharedDocs = map[string]*sharedDoc{stripeName: {}}

// sharedDoc is the first whole load of a document of that name, with every
// file the load read: the load stands for a later one when each of them
// reads the same (openapi.Load reads nothing else). Its Doc is only read
// after, as a held base is across runs.
type sharedDoc struct {
	mu    sync.Mutex
	reads map[string]string // file read -> its bytes' digest, or its error
	doc   *openapi.Doc
	err   error
}

// loadShared is openapi.Load, once per package run for a shared document
// read as it was the first time.
func loadShared(src source.Source, name string, display func(string) string) (*openapi.Doc, error) {
	s := sharedDocs[name]
	if s == nil || display != nil {
		return openapi.Load(src, name, display)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.reads == nil:
		r := &recording{Source: src, reads: map[string]string{}}
		s.doc, s.err = openapi.Load(r, name, nil)
		s.reads = r.reads
	case !readsSame(src, s.reads):
		return openapi.Load(src, name, nil)
	}
	return s.doc, s.err
}

// readsSame reports whether src serves every file in reads as it was read.
func readsSame(src source.Source, reads map[string]string) bool {
	for name, was := range reads {
		if readDigest(src.ReadFile(name)) != was {
			return false
		}
	}
	return true
}

// recording is a source that notes every file read through it.
type recording struct {
	source.Source
	mu    sync.Mutex
	reads map[string]string
}

func (r *recording) ReadFile(name string) ([]byte, error) {
	b, err := r.Source.ReadFile(name)
	r.mu.Lock()
	r.reads[name] = readDigest(b, err)
	r.mu.Unlock()
	return b, err
}

// readDigest names what a read gave: the bytes' digest, or the error.
func readDigest(b []byte, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	sum := sha256.Sum256(b)
	return string(sum[:])
}
