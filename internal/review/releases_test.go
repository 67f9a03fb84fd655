package review

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
)

// A lock is repository text: a path that leaves the tree or an id that is no
// object id is refused before git sees it; a blob git no longer has leaves
// the release to its field numbers.
func TestRestoreRefusesHostileLock(t *testing.T) {
	top := newRepo(t, "main").top
	id := strings.Repeat("a", 40)
	for _, rel := range []LockedRelease{
		{Name: "v1", Contracts: map[string]string{"../x.yaml": "sha256:0"}, Blobs: map[string]string{"../x.yaml": id}},
		{Name: "v1", Contracts: map[string]string{"x.yaml": "sha256:0"}, Blobs: map[string]string{"x.yaml": "--output=/tmp/x"}},
	} {
		if c, err := rel.Restore(top); err == nil || c != "" {
			t.Errorf("Restore(%v) = %q, %v; want an error", rel.Blobs, c, err)
		}
	}
	gone := LockedRelease{Name: "v1", Contracts: map[string]string{"x.yaml": "sha256:0"}, Blobs: map[string]string{"x.yaml": id}}
	if c, err := gone.Restore(top); err != nil || c != "" {
		t.Errorf("Restore of a missing blob = %q, %v; want none and no error", c, err)
	}
}

// A release whose blobs are still in the object store comes back whole, at
// the paths the lock recorded, though no ref reaches it.
func TestRestore(t *testing.T) {
	r := newRepo(t, "main")
	text := "openapi: 3.0.3\n"
	r.write("api/v1/pay.yaml", text)
	r.commit("v1")
	id := r.git("rev-parse", "HEAD:api/v1/pay.yaml")
	r.git("checkout", "-q", "--orphan", "fresh")
	r.git("rm", "-q", "-r", "--cached", ".")
	sum := sha256.Sum256([]byte(text))
	rel := LockedRelease{Name: "v1", Contracts: map[string]string{"api/v1/pay.yaml": "sha256:" + hex.EncodeToString(sum[:])},
		Blobs: map[string]string{"api/v1/pay.yaml": id}}
	c, err := rel.Restore(r.top)
	if err != nil || c == "" {
		t.Fatalf("Restore = %q, %v", c, err)
	}
	src, err := source.OpenRev(r.top, c)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if b, err := src.ReadFile("api/v1/pay.yaml"); err != nil || string(b) != text {
		t.Errorf("restored file = %q, %v", b, err)
	}
	rel.Contracts["api/v1/pay.yaml"] = "sha256:" + strings.Repeat("0", 64)
	if c, err := rel.Restore(r.top); err != nil || c != "" {
		t.Errorf("Restore with another digest = %q, %v; want none", c, err)
	}
}
