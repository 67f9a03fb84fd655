package rules

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// VersionBumpMissingID is the rule the version gate reports under.
const VersionBumpMissingID = "version-bump-missing"

// FailOnVersionBump is the --fail-on (and fail-on:) value that turns the
// version gate on and fails a run on its findings alone.
const FailOnVersionBump = "version-bump"

// DeclaredVersion is a version a contract declares: OpenAPI's info.version, or the
// major suffix of a proto package (acme.v1's v1).
type DeclaredVersion struct {
	// What names the declaration: "info.version", or "package acme" for
	// every package acme.vN.
	What string
	// Value is the version as written ("1.2.0", "2024-06-20", "v1").
	Value string
	// Package is the proto package declaring it (acme.v1); "" in OpenAPI.
	Package string
	Loc     Location
}

// protoMajor is a proto package's last component when it names a major
// version, as buf's PACKAGE_VERSION_SUFFIX reads it (v1, v1beta1, v2alpha).
var protoMajor = regexp.MustCompile(`^v\d+((alpha|beta)\d*|test\w*)?$`)

// PackageVersion is the version a proto package declares by its suffix:
// acme.v1 is version v1 of package acme. ok is false when it names none.
func PackageVersion(pkg string, loc Location) (d DeclaredVersion, ok bool) {
	i := strings.LastIndexByte(pkg, '.')
	if i < 0 || !protoMajor.MatchString(pkg[i+1:]) {
		return DeclaredVersion{}, false
	}
	return DeclaredVersion{What: "package " + pkg[:i], Value: pkg[i+1:], Package: pkg, Loc: loc}, true
}

// claims reports whether a finding or change about the element at path
// belongs to what d versions: all of an OpenAPI document, or the elements
// of one proto package (whose full names start with it).
func (d DeclaredVersion) claims(path string) bool {
	return d.Package == "" || strings.HasPrefix(path, d.Package+".")
}

// version is a declared version read as one of the forms APIs use.
type version struct {
	// major, minor and patch are SemVer's; a vN form sets major only.
	major, minor, patch int
	// date is set for the YYYY-MM-DD form (Stripe's, Azure's api-version).
	date time.Time
	// proto marks a package suffix: any change of it is a new package.
	proto bool
}

var semver = regexp.MustCompile(`^[vV]?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$`)

// parseVersion reads SemVer (1, 1.2 and 1.2.3, with or without a v and a
// pre-release or build suffix), a YYYY-MM-DD date, or a proto suffix.
func parseVersion(d DeclaredVersion) (version, bool) {
	if d.Package != "" {
		return version{proto: true}, true
	}
	s := strings.TrimSpace(d.Value)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return version{date: t}, true
	}
	m := semver.FindStringSubmatch(s)
	if m == nil {
		return version{}, false
	}
	var n [3]int
	for i, part := range m[1:] {
		if part != "" {
			v, err := strconv.Atoi(part)
			if err != nil {
				return version{}, false
			}
			n[i] = v
		}
	}
	return version{major: n[0], minor: n[1], patch: n[2]}, true
}

// moved is the bump a release declared by going from old to new; ok is
// false when the two cannot be compared (a date against a number).
func moved(old, new DeclaredVersion) (b Bump, ok bool) {
	ov, okOld := parseVersion(old)
	nv, okNew := parseVersion(new)
	switch {
	case !okOld || !okNew || ov.date.IsZero() != nv.date.IsZero():
		return 0, false
	case ov.proto:
		// A new package is a new API: acme.v2 beside or instead of acme.v1.
		if old.Value != new.Value {
			return Major, true
		}
		return 0, true
	case !ov.date.IsZero():
		// Each dated version is a version of its own: clients pin one.
		if nv.date.After(ov.date) {
			return Major, true
		}
		return 0, true
	}
	b = semverMove(ov, nv)
	// Below 1.0.0 anything may change (SemVer §4): each part counts one up.
	if ov.major == 0 && nv.major == 0 && b != 0 && b < Major {
		b++
	}
	return b, true
}

func semverMove(o, n version) Bump {
	switch {
	case n.major != o.major:
		if n.major > o.major {
			return Major
		}
	case n.minor != o.minor:
		if n.minor > o.minor {
			return Minor
		}
	case n.patch > o.patch:
		return Patch
	}
	return 0
}

// Needed is one command's record of the largest version bump its
// comparisons needed; the command reads it once every comparison has run.
// The zero value is empty and safe for concurrent use.
type Needed struct {
	mu   sync.Mutex
	bump Bump
}

// Add records a comparison's need.
func (n *Needed) Add(b Bump) {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.bump = max(n.bump, b)
	n.mu.Unlock()
}

// Bump is the largest bump recorded; zero when none was.
func (n *Needed) Bump() Bump {
	if n == nil {
		return 0
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.bump
}

// NeededBump is the bump the changes of in need, given the findings the
// rules reported about them, for the elements d claims (every element
// when d is nil): the largest of the findings' bumps and, for changes no
// finding is about, ChangeBump's (an added operation needs a minor bump).
func NeededBump(in *Input, findings []Finding, d *DeclaredVersion) Bump {
	claims := func(path string) bool { return d == nil || d.claims(path) }
	var b Bump
	for _, f := range findings {
		if claims(f.Path) {
			b = max(b, f.Bump)
		}
	}
	for i := range in.Changes {
		if c := &in.Changes[i]; claims(c.Path) {
			b = max(b, ChangeBump(c))
		}
	}
	if in.Old != nil && in.New != nil && len(NewOperations(in.Old, in.New)) > 0 && (d == nil || d.Package == "") {
		b = max(b, Minor)
	}
	return b
}

// VersionCheck is one version the new side declares, held to what the
// changes of the elements it versions need.
type VersionCheck struct {
	Old, New DeclaredVersion
	// Needed is the bump the changes need; Declared the one the version
	// moved by, when Readable (both sides read as one form).
	Needed, Declared Bump
	Readable         bool
}

// Short reports whether the version moved less than the changes need. A
// proto package suffix declares majors only, so it is held to a major
// need alone; a version that cannot be read is short whenever a bump is
// needed, since whether it moved enough cannot be told.
func (v VersionCheck) Short() bool {
	if v.Needed == 0 || v.New.Package != "" && v.Needed < Major {
		return false
	}
	return !v.Readable || v.Declared < v.Needed
}

// Message says what the version gate reports: "needs a MAJOR bump:
// info.version went 1.0 → 1.1".
func (v VersionCheck) Message() string {
	need := strings.ToUpper(v.Needed.String())
	msg := fmt.Sprintf("needs a %s bump: %s went %s → %s", need, v.New.What, v.Old.Value, v.New.Value)
	if v.Old.Value == v.New.Value {
		msg = fmt.Sprintf("needs a %s bump: %s stayed %s", need, v.New.What, v.New.Value)
	}
	if !v.Readable {
		msg += fmt.Sprintf(", and %s cannot be read as SemVer (1.2.3), a date (YYYY-MM-DD) or vN, so whether it moved enough cannot be told", v.New.What)
	}
	return msg
}

// VersionChecks holds each version the new side declares, and the old side
// declared too, to the bump its elements' changes need given the findings.
// A package on one side only (acme.v1 gone, acme.v2 new) is matched by its
// name without the suffix: moving to acme.v2 is a new API, which covers
// any break of acme.v1.
func VersionChecks(in *Input, findings []Finding) []VersionCheck {
	if in.Old == nil || in.New == nil {
		return nil
	}
	var out []VersionCheck
	for _, nd := range in.New.Versions {
		od, ok := declaredAs(in.Old.Versions, nd.What)
		if !ok {
			continue // newly versioned: nothing to compare against
		}
		v := VersionCheck{Old: od, New: nd, Needed: max(NeededBump(in, findings, &od), NeededBump(in, findings, &nd))}
		v.Declared, v.Readable = moved(od, nd)
		out = append(out, v)
	}
	return out
}

// VersionGate is the version-bump-missing finding for each version the new
// side declares that moved less than its changes need.
func VersionGate(in *Input, findings []Finding) []Finding {
	var out []Finding
	for _, v := range VersionChecks(in, findings) {
		if v.Short() {
			out = append(out, Finding{Rule: VersionBumpMissingID, Severity: Error, Bump: v.Needed, Message: v.Message(),
				Where: v.New.Loc, Path: v.New.What, Format: in.New.Format})
		}
	}
	return out
}

func declaredAs(ds []DeclaredVersion, what string) (DeclaredVersion, bool) {
	for _, d := range ds {
		if d.What == what {
			return d, true
		}
	}
	return DeclaredVersion{}, false
}

func versionBumpMissing() *Rule {
	return &Rule{
		ID:       VersionBumpMissingID,
		Pack:     Evolution,
		Formats:  OpenAPI | Proto,
		Mode:     DiffRule,
		Severity: Error,
		// It reports a number, not a change any client sees.
		Bump: Patch,
		// On with --fail-on version-bump (or fail-on: version-bump).
		Off: true,
		Doc: Doc{
			Title: "The declared version moved less than the change needs",
			Text: "Every finding knows the version bump its change needs: major when it breaks a client that " +
				"exists, minor when it adds what a client may use, patch otherwise. This rule compares the run's " +
				"need with the version the contract declares: OpenAPI's info.version (SemVer, a YYYY-MM-DD date, " +
				"or vN; a new date counts as a major release) and a proto package's major suffix (acme.v1 to " +
				"acme.v2 is a new API, which covers any break of the old one; a suffix says nothing of minor " +
				"releases). A version it cannot read is reported as such. `--fail-on version-bump` (or " +
				"`fail-on: version-bump` in the config) turns it on and fails the run on it alone. Its findings are " +
				"accepted like any rule's: a config ignore with `element: version` (OpenAPI) or the last part of " +
				"the package's name before its suffix (proto: `shop` for acme.shop.v1) accepts one.",
			Bad:  "# a response property removed\ninfo:\n  version: 1.4.0   # was 1.3.0: needs 2.0.0",
			Good: "# a response property removed\ninfo:\n  version: 2.0.0   # was 1.3.0",
		},
	}
}
