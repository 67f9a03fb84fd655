package rules_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// releasedIDs is every rule ID contractlint has shipped, one a line. It
// only grows: -update (go generate) appends the IDs of new rules and never
// drops one.
const releasedIDs = "../testdata/released-rule-ids.txt"

// TestReleasedIDs holds every released ID to the stability policy
// (docs/rules.md#rule-id-stability): each is a rule's ID now, or a
// renamed or retired ID that still resolves; and every rule's ID is on the
// list, so the next release is held to it too.
func TestReleasedIDs(t *testing.T) {
	b, err := os.ReadFile(releasedIDs)
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Fields(string(b))
	reg := rules.Default()
	for _, id := range listed {
		if _, ok := reg.Get(id); ok {
			continue
		}
		t2, ok := reg.Retired(id)
		if !ok || t2.Peer != "" {
			t.Errorf("released rule ID %s is gone: keep it, or add a rename or retirement for it in rules/retired.go", id)
		}
	}
	var missing []string
	for _, r := range reg.All() {
		if !slices.Contains(listed, r.ID) {
			missing = append(missing, r.ID)
		}
	}
	if len(missing) == 0 {
		return
	}
	if !*updateDocs {
		t.Fatalf("rules not on %s: %s (go generate ./... appends them)", releasedIDs, strings.Join(missing, ", "))
	}
	if err := os.WriteFile(releasedIDs, []byte(strings.Join(append(listed, missing...), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A renamed or retired ID, contractlint's or buf's, resolves wherever an
// ID is accepted, to the rules that now cover it; one nothing covers
// resolves to none but is still known.
func TestRetiredResolve(t *testing.T) {
	reg := rules.Default().WithRetired(
		rules.Retirement{ID: "old-operation-removed", In: "v0.9.0", By: []string{"operation-removed"}, Renamed: true},
		rules.Retirement{ID: "schema-changed", In: "v0.9.0", By: []string{"request-property-type-changed", "response-property-type-changed"}},
		rules.Retirement{ID: "path-case-changed", In: "v0.9.0"},
	)
	for _, c := range []struct {
		name, via string
		want      []string
		warning   string
	}{
		{"old-operation-removed", rules.ViaRenamed, []string{"operation-removed"}, "rule old-operation-removed was renamed operation-removed in v0.9.0; the old name still works"},
		{"schema-changed", rules.ViaRetired, []string{"request-property-type-changed", "response-property-type-changed"},
			"rule schema-changed was retired in v0.9.0, now covered by request-property-type-changed, response-property-type-changed"},
		{"path-case-changed", rules.ViaRetired, nil, "rule path-case-changed was retired in v0.9.0 and no rule covers it now; naming it does nothing"},
		{"FIELD_SAME_CTYPE", rules.ViaBufRetired, []string{"proto-field-ctype-changed"}, "FIELD_SAME_CTYPE is a retired buf rule, now covered by FIELD_SAME_CPP_STRING_TYPE; it stands for the rules those map to"},
		{"FILE_SAME_JAVA_STRING_CHECK_UTF8", rules.ViaBufRetired, []string{"proto-field-java-utf8-validation-changed"}, ""},
	} {
		ids, via := reg.Resolve(c.name)
		if !slices.Equal(ids, c.want) || via != c.via {
			t.Errorf("Resolve(%s) = %v via %q, want %v via %q", c.name, ids, via, c.want, c.via)
		}
		tr, ok := reg.Retired(c.name)
		if !ok || c.warning != "" && tr.Warning() != c.warning {
			t.Errorf("Retired(%s) = %q, %v; want %q", c.name, tr.Warning(), ok, c.warning)
		}
	}
	if ids, _ := reg.Resolve("FIELD_SAME_LABEL"); len(ids) < 3 {
		t.Errorf("FIELD_SAME_LABEL stands for %v, want the rules of all three cardinality checks", ids)
	}
	// Every retirement the registry ships resolves to rules that exist.
	for _, tr := range rules.Default().Retirements() {
		for _, by := range tr.By {
			if ids, _ := rules.Default().Resolve(by); len(ids) == 0 {
				t.Errorf("%s: successor %s resolves to no rule", tr.ID, by)
			}
		}
	}
}
