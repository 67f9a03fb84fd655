package rules

import (
	"strings"
	"testing"
)

func TestParseUnit(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		tag        bool
	}{
		{"Ticket price in dollars.", "dollars", false},
		{"Price in cents, e.g. 4000 for $40.00", "cents", false},
		{"Amount in USD cents", "cents", false},
		{"Timeout (ms)", "milliseconds", false},
		{"Duration in seconds; 60 seconds is one minute", "seconds", false},
		{"Upload size in MB", "MB", false},
		{"Discount as a percentage", "percent", false},
		{"Fee in basis points", "basis points", false},
		{"Fee as a ratio", "ratio", false},
		{"Contact us for the price", "", false},
		{"Price", "", false},
		{"1000 milliseconds make one second", "", false},
		{"Hours of day in 24 hour format.", "hours", false},
		{"Duration as a number of seconds; at most 5 minutes", "seconds", false},
		{"s", "seconds", true},
		{"bps", "basis points", true},
		{"USD", "dollars", true},
	} {
		extra := map[string]string(nil)
		if tc.tag {
			extra = tagWords
		}
		u, ok := parseUnit(tc.text, extra)
		if ok != (tc.want != "") || u.Name != tc.want {
			t.Errorf("parseUnit(%q) = %q, %v; want %q", tc.text, u.Name, ok, tc.want)
		}
	}
}

func TestPowerOfTen(t *testing.T) {
	for x, want := range map[float64]int{100: 2, 0.01: -2, 10: 1, 1: 0, 50: 0, 0: 0, -100: 0} {
		k, ok := powerOfTen(x)
		if ok != (want != 0) || k != want {
			t.Errorf("powerOfTen(%v) = %d, %v; want %d", x, k, ok, want)
		}
	}
}

func field(mod func(*Field)) *Field {
	f := &Field{Name: "price", Type: "number", Description: "Ticket price in dollars.", Example: 40, HasExample: true}
	mod(f)
	return f
}

func same(*Field) {}

func TestRedefinedOpenAPI(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new func(*Field)
		want     string // "" = not redefined
	}{
		{"canonical", same, func(f *Field) { f.Type, f.Description, f.Example = "integer", "Ticket price in cents.", 4000 },
			"price: type number -> integer, unit dollars -> cents: old clients read 4000 as $4,000; add price_cents and keep price unchanged"},
		{"x-unit beats description", func(f *Field) { f.Unit = "USD" }, func(f *Field) { f.Unit = "cents"; f.Example = 4000 },
			"price: unit dollars -> cents: old clients read 4000 as $4,000"},
		{"multipleOf scale", func(f *Field) { f.Description, f.MultipleOf = "", 0.01 }, func(f *Field) { f.Description, f.MultipleOf, f.HasExample = "", 1, false },
			"price: multipleOf 0.01 -> 1: old clients read every value 100 times too large"},
		{"example alone with decimals gone", func(f *Field) { f.Description = "" }, func(f *Field) { f.Description, f.Type, f.Example = "", "integer", 4000 },
			"price: type number -> integer, example 40 -> 4000: old clients read every value 100 times too large"},
		{"example moved without a unit reason", func(f *Field) { f.Description = "" }, func(f *Field) { f.Description, f.Example = "", 4000 }, ""},
		{"seconds to milliseconds", func(f *Field) { f.Name, f.Description, f.Example = "timeout", "Timeout in seconds", 30 },
			func(f *Field) { f.Name, f.Description, f.Example = "timeout", "Timeout in milliseconds", 30000 },
			"timeout: unit seconds -> milliseconds: old clients read 30000 as 30,000 seconds; add timeout_ms"},
		{"description reworded, same unit", same, func(f *Field) { f.Description = "The price of one ticket, in dollars." }, ""},
		{"description loses its unit", same, func(f *Field) { f.Description = "Ticket price." }, ""},
		{"finer multipleOf under the same unit", func(f *Field) { f.MultipleOf = 1 }, func(f *Field) { f.MultipleOf = 0.01 }, ""},
		{"format", func(f *Field) { f.Type, f.Format, f.Description = "string", "date-time", "" }, func(f *Field) { f.Type, f.Format, f.Description = "string", "date", "" },
			"price: format date-time -> date: clients built on the old definition misread the new values"},
		{"boolean to enum", func(f *Field) { f.Type, f.Description = "boolean", "" }, func(f *Field) { f.Type, f.Description, f.Enum = "string", "", []string{"yes", "no", "unknown"} },
			"price: type boolean -> string, boolean -> enum [yes, no, unknown]"},
		{"enum renamed", func(f *Field) { f.Type, f.Enum = "string", []string{"paid", "failed"} }, func(f *Field) { f.Type, f.Enum = "string", []string{"PAID", "FAILED"} },
			"enum values renamed paid -> PAID, failed -> FAILED"},
		{"enum grew", func(f *Field) { f.Type, f.Enum = "string", []string{"paid"} }, func(f *Field) { f.Type, f.Enum = "string", []string{"paid", "failed"} }, ""},
		{"array flipped", same, func(f *Field) { f.Array = true }, "price: single value -> array"},
		// Nullability is its own change (response-became-nullable,
		// request-became-not-nullable), in the direction that breaks.
		{"nullable flipped", func(f *Field) { f.Nullable = true }, same, ""},
		{"unit named only on the new side, example 100x", func(f *Field) { f.Description = "The ticket price." },
			func(f *Field) { f.Description, f.Example = "The ticket price in cents.", 4000 },
			"price: unit (none stated) -> cents, example 40 -> 4000: old clients read every value 100 times too large"},
		{"unit named only on the old side, example 100x", same, func(f *Field) { f.Description, f.Example = "The ticket price.", 4000 },
			"unit dollars -> (none stated), example 40 -> 4000: old clients read 4000 as $4,000"},
		{"unit named only on the new side, example unchanged", func(f *Field) { f.Description = "The ticket price." },
			func(f *Field) { f.Description = "The ticket price in cents." }, ""},
		{"title names the unit", func(f *Field) { f.Description, f.Title = "", "Price (dollars)" },
			func(f *Field) { f.Description, f.Title, f.Example = "", "Price (cents)", 4000 }, "unit dollars -> cents"},
		{"string money loses its decimals", func(f *Field) { f.Type, f.Description, f.HasExample, f.StringExample = "string", "", false, "40.00" },
			func(f *Field) { f.Type, f.Description, f.HasExample, f.StringExample = "string", "", false, "4000" },
			`example "40.00" -> "4000": old clients read every value 100 times too large`},
		{"string money, pattern loses its decimals", func(f *Field) { f.Type, f.Description, f.HasExample, f.Pattern = "string", "", false, `^\d+\.\d{2}$` },
			func(f *Field) { f.Type, f.Description, f.HasExample, f.Pattern = "string", "", false, `^\d+$` },
			`pattern ^\d+\.\d{2}$ -> ^\d+$`},
		{"string example reworded at the same scale", func(f *Field) { f.Type, f.Description, f.HasExample, f.StringExample = "string", "", false, "40.00" },
			func(f *Field) { f.Type, f.Description, f.HasExample, f.StringExample = "string", "", false, "41.50" }, ""},
		{"same unit on both sides, example 100x", same, func(f *Field) { f.Example = 4000 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Change{Kind: Modified, Subject: SubjectField, Name: field(tc.old).Name, Format: OpenAPI,
				OldField: field(tc.old), NewField: field(tc.new)}
			msg, ok := redefinedOpenAPI(c)
			if tc.want == "" {
				if ok {
					t.Fatalf("reported %q; want nothing", msg)
				}
				return
			}
			if !ok || !strings.Contains(msg, tc.want) {
				t.Fatalf("got %q, %v; want it to contain %q", msg, ok, tc.want)
			}
		})
	}
}

// The message names the direction: a response is misread by old clients; a
// request is misread by the server.
func TestRedefinedDirection(t *testing.T) {
	o := field(same)
	n := field(func(f *Field) { f.Type, f.Description, f.Example = "integer", "Ticket price in cents.", 4000 })
	for dir, want := range map[Direction]string{
		Response:           "old clients read 4000 as $4,000;",
		Request:            "old clients send 40 meaning $40, and the server now reads it as 40 cents;",
		Request | Response: "old clients read 4000 as $4,000; old clients send 40 meaning $40, and the server now reads it as 40 cents;",
	} {
		c := &Change{Kind: Modified, Subject: SubjectField, Name: "price", Format: OpenAPI, Dir: dir, OldField: o, NewField: n}
		msg, ok := redefinedOpenAPI(c)
		if !ok || !strings.Contains(msg, want) {
			t.Errorf("dir %v: got %q; want it to contain %q", dir, msg, want)
		}
		if dir == Request && strings.Contains(msg, "read 4000 as") {
			t.Errorf("request message speaks of reading a response: %q", msg)
		}
	}
}

func TestGrouped(t *testing.T) {
	for x, want := range map[float64]string{4000: "4,000", 40: "40", 1234567.5: "1,234,567.5", -1000: "-1,000"} {
		if got := grouped(x); got != want {
			t.Errorf("grouped(%v) = %q; want %q", x, got, want)
		}
	}
}

func TestBodyPath(t *testing.T) {
	for p, want := range map[string]string{
		"#/components/schemas/Order/properties/price":                                                    "price",
		"#/components/schemas/Order/properties/items/items/properties/price":                             "items.price",
		"#/components/schemas/Order/allOf/1/properties/price":                                            "price",
		"#/paths/~1v1~1orders~1{id}/get/responses/200/content/application~1json/schema/properties/price": "$.price",
	} {
		segs, rooted := bodyPath(p, "x")
		got := strings.Join(segs, ".")
		if rooted {
			got = "$." + got
		}
		if got != want {
			t.Errorf("bodyPath(%q) = %q; want %q", p, got, want)
		}
	}
}

// A proto field's comments state its unit; field_behavior says which way
// the data flows, and so who misreads it.
func TestRedefinedProtoUnits(t *testing.T) {
	pf := func(comment string, behavior ...string) *Field {
		return &Field{Name: "price", Type: "int64", Number: 3, Description: comment, Behavior: behavior}
	}
	for _, tc := range []struct {
		name     string
		old, new *Field
		want     string // "" = not redefined
		not      string
	}{
		{"both ways", pf("Price in dollars."), pf("Price in cents."),
			"price: unit dollars -> cents: old clients read every value 100 times too large; the server now reads every value old clients send 100 times too small; add price_cents and keep price unchanged", ""},
		{"output only", pf("Price in dollars.", "OUTPUT_ONLY"), pf("Price in cents.", "OUTPUT_ONLY"),
			"old clients read every value 100 times too large; add price_cents", "server"},
		{"input only", pf("Hold in seconds.", "INPUT_ONLY"), pf("Hold in milliseconds.", "INPUT_ONLY"),
			"the server now reads every value old clients send 1,000 times too small; add price_ms", "old clients read"},
		{"reworded", pf("Price in dollars."), pf("The price, in US dollars."), "", ""},
		// googleapis 2026-02 -> 2026-08: comments reworded around units that
		// are not the field's encoding.
		{"the name says the unit", &Field{Name: "hours", Type: "int32", Description: "Hours of day in 24 hour format."},
			&Field{Name: "hours", Type: "int32", Description: "Hours of a day in 24 hour format."}, "", ""},
		{"a Duration's comment", &Field{Name: "task_ttl", Type: "google.protobuf.Duration", Format: "message", Description: "Default of 31 days."},
			&Field{Name: "task_ttl", Type: "google.protobuf.Duration", Format: "message", Description: "Default of 1 hour, in seconds."}, "", ""},
		{"unit option beats the comment", &Field{Name: "size", Type: "int64", Unit: "KiB", Description: "Size."},
			&Field{Name: "size", Type: "int64", Unit: "bytes", Description: "Size."}, "unit KiB -> bytes", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, ok := redefinedProto(&Change{Kind: Modified, Subject: SubjectField, Format: Proto, OldField: tc.old, NewField: tc.new})
			if tc.want == "" {
				if ok {
					t.Fatalf("reported %q; want nothing", msg)
				}
				return
			}
			if !ok || !strings.Contains(msg, tc.want) || (tc.not != "" && strings.Contains(msg, tc.not)) {
				t.Fatalf("got %q (%v); want a finding containing %q and not %q", msg, ok, tc.want, tc.not)
			}
		})
	}
}
