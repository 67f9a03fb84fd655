package rules

import (
	"maps"
	"slices"
	"testing"
)

// TestUnitWords gives every spelling in the table a positive case (it names
// its unit after "in") and a negative one (inside a longer word it names
// nothing), so an entry cannot be added without being exercised.
func TestUnitWords(t *testing.T) {
	for _, w := range slices.Sorted(maps.Keys(unitWords)) {
		want := unitWords[w]
		if _, ok := units[want]; !ok {
			t.Errorf("unitWords[%q] = %q, which is not in units", w, want)
			continue
		}
		if u, ok := parseUnit("Value in "+w+".", nil); !ok || u.Name != want {
			t.Errorf("%q: parseUnit(\"Value in %s.\") = %q, %v; want %q", w, w, u.Name, ok, want)
		}
		if u, ok := parseUnit("Value of the x"+w+"y field.", nil); ok {
			t.Errorf("%q: a longer word containing it names %q; want nothing", w, u.Name)
		}
	}
	for _, w := range slices.Sorted(maps.Keys(tagWords)) {
		if u, ok := parseUnit(w, tagWords); !ok || u.Name != tagWords[w] {
			t.Errorf("tag %q = %q, %v; want %q", w, u.Name, ok, tagWords[w])
		}
		// Currency signs name their currency in prose too ("$40").
		if _, sign := gluedSign(w + "1"); sign {
			continue
		}
		if u, ok := parseUnit("Value "+w, nil); ok && u.Name == tagWords[w] && unitWords[w] == "" {
			t.Errorf("tag-only spelling %q names %q in prose; want nothing", w, u.Name)
		}
	}
}

// TestUnitTable checks the families the redefinition rule compares: each
// unit with a text that names it and one that must not, and the scale
// between neighbours that turns 40.00 into 4000.
func TestUnitTable(t *testing.T) {
	for _, tc := range []struct {
		unit, yes, no string
	}{
		{"dollars", "Ticket price in USD.", "Price; see the USDA tables."},
		{"cents", "Amount in cents, e.g. 4000 for $40.00", "Percentage of the total."},
		{"pounds", "Fare in pounds sterling.", "Pound the table until it answers."},
		{"pence", "Fare in pence.", "Expensive."},
		{"euros", "Price in EUR.", "European prices."},
		{"minor units", "Amount in minor units of the currency.", "Minor version of the API."},
		{"seconds", "Timeout in seconds.", "The second address line."},
		{"milliseconds", "Latency (ms).", "Messages per batch."},
		{"microseconds", "Duration in µs.", "Used by us."},
		{"nanoseconds", "Clock skew in ns.", "Namespace of the resource."},
		{"minutes", "Expires after 5 minute.", "Minute details of the order."},
		{"hours", "Retention in hours.", "Opening hour sign."},
		{"days", "Kept for 30 day.", "Day of the week name."},
		{"bits", "Key size in bits.", "Bit by bit it grew."},
		{"bytes", "Upload size in bytes.", "Bytecode version."},
		{"KB", "Size in KB.", "Knowledge base article."},
		{"KiB", "Size in KiB.", "A kibble of data."},
		{"MB", "Size in megabytes.", "Member since."},
		{"MiB", "Memory in MiB.", "Middle initial."},
		{"GB", "Disk size in GB.", "Great Britain region."},
		{"GiB", "Disk size in GiB.", "Gift card."},
		{"percent", "Discount as a percentage.", "Per cent of nothing: a typo."},
		{"ratio", "Discount as a fraction of the price.", "Fractional shares."},
		{"basis points", "Fee in basis points.", "Basis of the calculation."},
		{"degrees", "Heading in degrees.", "A degree of freedom."},
		{"radians", "Heading in radians.", "Radiant colour."},
	} {
		if u, ok := parseUnit(tc.yes, nil); !ok || u.Name != tc.unit {
			t.Errorf("%q = %q, %v; want %q", tc.yes, u.Name, ok, tc.unit)
		}
		if u, ok := parseUnit(tc.no, nil); ok && u.Name == tc.unit {
			t.Errorf("%q names %q; want it not to", tc.no, u.Name)
		}
	}
	for _, u := range slices.Sorted(maps.Keys(units)) {
		if units[u].Name != u || units[u].Scale <= 0 || units[u].Dim == "" {
			t.Errorf("units[%q] = %+v: want its own name, a scale and a dimension", u, units[u])
		}
	}
	for _, tc := range []struct {
		from, to string
		growth   float64
	}{
		{"dollars", "cents", 100}, {"pence", "pounds", 0.01}, {"seconds", "milliseconds", 1000},
		{"microseconds", "nanoseconds", 1000}, {"KiB", "bytes", 1024}, {"KB", "bytes", 1000},
		{"ratio", "percent", 100}, {"radians", "degrees", 57.29577951308232},
	} {
		got := units[tc.from].Scale / units[tc.to].Scale
		if d := got - tc.growth; d > 1e-9*tc.growth || d < -1e-9*tc.growth {
			t.Errorf("%s -> %s grows numbers %v times; want %v", tc.from, tc.to, got, tc.growth)
		}
	}
}
