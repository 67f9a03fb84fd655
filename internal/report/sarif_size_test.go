package report

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// TestSARIFSize: past the compressed size, the least severe findings are
// left out, as few as keep the file under it, and a notification says how
// many; the file written is valid SARIF.
func TestSARIFSize(t *testing.T) {
	var fs []rules.Finding
	for i := range 400 {
		sev := rules.Info
		if i%4 == 0 {
			sev = rules.Error
		}
		// Hashes do not compress: each finding costs its size in the file.
		a, b := sha512.Sum512([]byte(fmt.Sprint(i))), sha512.Sum512([]byte(fmt.Sprint(-i)))
		fs = append(fs, rules.Finding{Rule: "money-as-float", Severity: sev, Message: hex.EncodeToString(a[:]) + hex.EncodeToString(b[:]),
			Where: rules.Location{File: "api.yaml", Line: i + 1}, Path: fmt.Sprint(i)})
	}
	const limit = 40 << 10
	var buf bytes.Buffer
	if err := (SizedSARIF{MaxBytes: limit}).Write(&buf, testReport(t, fs)); err != nil {
		t.Fatal(err)
	}
	if n, _ := gzipSize(buf.Bytes()); n > limit {
		t.Fatalf("compressed size %d, over the %d limit", n, limit)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	kept := len(run.Results)
	if kept == 0 || kept >= 400 {
		t.Fatalf("%d results kept, want some but not all", kept)
	}
	errors := 0
	for _, r := range run.Results {
		if r.Level == "error" {
			errors++
		}
	}
	if errors != min(kept, 100) {
		t.Errorf("%d of %d kept results are errors, want the errors kept first", errors, kept)
	}
	// One more result would not have fit: the cut is as small as it can be.
	var more bytes.Buffer
	SARIF{MaxResults: kept + 1}.Write(&more, testReport(t, fs))
	if n, _ := gzipSize(more.Bytes()); n <= limit-2048 {
		t.Errorf("with one more result the file is %d bytes compressed: more would have fit", n)
	}
	note := fmt.Sprintf("%d least severe findings left out to keep the file under", 400-kept)
	found := false
	for _, inv := range run.Invocations {
		for _, n := range inv.Notifications {
			found = found || strings.Contains(n.Message.Text, note)
		}
	}
	if !found {
		t.Errorf("no notification says %q: %+v", note, run.Invocations)
	}
}

// TestSARIFSizeUnderLimit: a file under the limit is SARIF's own output.
func TestSARIFSizeUnderLimit(t *testing.T) {
	r := testReport(t, fixedFindings())
	var a, b bytes.Buffer
	if err := (SizedSARIF{}).Write(&a, r); err != nil {
		t.Fatal(err)
	}
	SARIF{}.Write(&b, r)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("the size bound changed a small report")
	}
}
