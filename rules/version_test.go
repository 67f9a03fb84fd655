package rules

import "testing"

// The bump a release declared, read from the forms APIs version by.
func TestMoved(t *testing.T) {
	info := func(v string) DeclaredVersion { return DeclaredVersion{What: "info.version", Value: v} }
	pkg := func(p string) DeclaredVersion { d, _ := PackageVersion(p, Location{}); return d }
	for _, c := range []struct {
		old, new DeclaredVersion
		want     Bump
		ok       bool
	}{
		{info("1.0.0"), info("2.0.0"), Major, true},
		{info("1.0"), info("1.1"), Minor, true},
		{info("v1.2.3"), info("v1.2.4"), Patch, true},
		{info("1.2.3"), info("1.2.3"), 0, true},
		{info("2.0.0"), info("1.9.0"), 0, true}, // backwards declares nothing
		{info("1.0.0-beta.1"), info("1.0.0"), 0, true},
		{info("0.3.0"), info("0.4.0"), Major, true}, // below 1.0 a minor may break
		{info("0.3.0"), info("0.3.1"), Minor, true},
		{info("v1"), info("v2"), Major, true},
		{info("2024-06-20"), info("2025-01-01"), Major, true},
		{info("2024-06-20"), info("2024-06-20"), 0, true},
		{info("1.0.0"), info("2025-01-01"), 0, false},
		{info("1.0.0"), info("latest"), 0, false},
		{pkg("acme.v1"), pkg("acme.v2"), Major, true},
		{pkg("acme.v1beta1"), pkg("acme.v1"), Major, true},
		{pkg("acme.v1"), pkg("acme.v1"), 0, true},
	} {
		got, ok := moved(c.old, c.new)
		if got != c.want || ok != c.ok {
			t.Errorf("%s → %s: %v, %v; want %v, %v", c.old.Value, c.new.Value, got, ok, c.want, c.ok)
		}
	}
	if _, ok := PackageVersion("acme.shop", Location{}); ok {
		t.Error("acme.shop declares a version")
	}
	if d, _ := PackageVersion("acme.shop.v3", Location{}); d.What != "package acme.shop" || d.Value != "v3" {
		t.Errorf("acme.shop.v3 read as %+v", d)
	}
}
