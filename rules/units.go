package rules

import (
	"math"
	"strings"
	"unicode"
)

// unit is a unit of measure a field's number is in. Fields in the same
// dimension compare by scale: dollars (1) -> cents (0.01) makes every number
// 100 times larger.
type unit struct {
	Name   string // canonical spelling used in messages
	Dim    string // money, time, data, ratio
	Scale  float64
	Suffix string // the field-name suffix that says the unit: price_cents
	Symbol string // a currency sign to show amounts with: $4,000
}

// units lists the units contractlint recognises; the keys of unitWords map
// spellings onto them.
var units = map[string]unit{
	"dollars":      {Name: "dollars", Dim: "money", Scale: 1, Suffix: "dollars", Symbol: "$"},
	"cents":        {Name: "cents", Dim: "money", Scale: 0.01, Suffix: "cents"},
	"pounds":       {Name: "pounds", Dim: "money", Scale: 1, Suffix: "pounds", Symbol: "£"},
	"pence":        {Name: "pence", Dim: "money", Scale: 0.01, Suffix: "pence"},
	"euros":        {Name: "euros", Dim: "money", Scale: 1, Suffix: "euros", Symbol: "€"},
	"minor units":  {Name: "minor units", Dim: "money", Scale: 0.01, Suffix: "minor"},
	"nanoseconds":  {Name: "nanoseconds", Dim: "time", Scale: 1e-9, Suffix: "ns"},
	"microseconds": {Name: "microseconds", Dim: "time", Scale: 1e-6, Suffix: "us"},
	"milliseconds": {Name: "milliseconds", Dim: "time", Scale: 1e-3, Suffix: "ms"},
	"seconds":      {Name: "seconds", Dim: "time", Scale: 1, Suffix: "seconds"},
	"minutes":      {Name: "minutes", Dim: "time", Scale: 60, Suffix: "minutes"},
	"hours":        {Name: "hours", Dim: "time", Scale: 3600, Suffix: "hours"},
	"days":         {Name: "days", Dim: "time", Scale: 86400, Suffix: "days"},
	"bits":         {Name: "bits", Dim: "data", Scale: 0.125, Suffix: "bits"},
	"bytes":        {Name: "bytes", Dim: "data", Scale: 1, Suffix: "bytes"},
	"KB":           {Name: "KB", Dim: "data", Scale: 1e3, Suffix: "kb"},
	"KiB":          {Name: "KiB", Dim: "data", Scale: 1 << 10, Suffix: "kib"},
	"MB":           {Name: "MB", Dim: "data", Scale: 1e6, Suffix: "mb"},
	"MiB":          {Name: "MiB", Dim: "data", Scale: 1 << 20, Suffix: "mib"},
	"GB":           {Name: "GB", Dim: "data", Scale: 1e9, Suffix: "gb"},
	"GiB":          {Name: "GiB", Dim: "data", Scale: 1 << 30, Suffix: "gib"},
	"percent":      {Name: "percent", Dim: "ratio", Scale: 0.01, Suffix: "percent"},
	"ratio":        {Name: "ratio", Dim: "ratio", Scale: 1, Suffix: "ratio"},
	"basis points": {Name: "basis points", Dim: "ratio", Scale: 1e-4, Suffix: "bps"},
	"degrees":      {Name: "degrees", Dim: "angle", Scale: math.Pi / 180, Suffix: "deg"},
	"radians":      {Name: "radians", Dim: "angle", Scale: 1, Suffix: "rad"},
}

// unitWords maps the words a description uses onto units. Only words that
// cannot mean anything else in prose are here; "s", "min" or "us" are not.
var unitWords = map[string]string{
	"dollar": "dollars", "dollars": "dollars", "usd": "dollars",
	"cent": "cents", "cents": "cents", "usd cents": "cents", "euro cents": "cents", "eur cents": "cents",
	"pound": "pounds", "pounds": "pounds", "gbp": "pounds", "sterling": "pounds",
	"penny": "pence", "pence": "pence", "pennies": "pence", "gbp pence": "pence",
	"euro": "euros", "euros": "euros", "eur": "euros",
	"minor units": "minor units", "minor unit": "minor units",
	"nanosecond": "nanoseconds", "nanoseconds": "nanoseconds", "ns": "nanoseconds", "nsec": "nanoseconds",
	"microsecond": "microseconds", "microseconds": "microseconds", "µs": "microseconds", "μs": "microseconds", "usec": "microseconds",
	"millisecond": "milliseconds", "milliseconds": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "millis": "milliseconds",
	"second": "seconds", "seconds": "seconds", "sec": "seconds", "secs": "seconds",
	"minute": "minutes", "minutes": "minutes", "mins": "minutes",
	"hour": "hours", "hours": "hours", "hrs": "hours",
	"day": "days", "days": "days",
	"bit": "bits", "bits": "bits",
	"byte": "bytes", "bytes": "bytes",
	"kb": "KB", "kilobyte": "KB", "kilobytes": "KB", "kib": "KiB", "kibibytes": "KiB",
	"mb": "MB", "megabyte": "MB", "megabytes": "MB", "mib": "MiB", "mebibytes": "MiB",
	"gb": "GB", "gigabyte": "GB", "gigabytes": "GB", "gib": "GiB", "gibibytes": "GiB",
	"percent": "percent", "percentage": "percent", "%": "percent",
	"ratio": "ratio", "fraction": "ratio",
	"basis point": "basis points", "basis points": "basis points",
	"degree": "degrees", "degrees": "degrees", "radian": "radians", "radians": "radians",
}

// weakWords are unit words that are ordinary English too ("the second
// line", "a pound of", "bit by bit"): they name a unit only right after a
// number or after in/of/per.
var weakWords = map[string]bool{"second": true, "minute": true, "hour": true, "pound": true, "day": true, "bit": true, "degree": true}

// tagWords are the extra spellings accepted in an x-unit value, which names a
// unit and nothing else, so short symbols are unambiguous there.
var tagWords = map[string]string{
	"s": "seconds", "min": "minutes", "h": "hours", "d": "days", "us": "microseconds", "deg": "degrees", "rad": "radians",
	"b": "bytes", "bp": "basis points", "bps": "basis points", "pct": "percent",
	"$": "dollars", "£": "pounds", "€": "euros", "p": "pence", "c": "cents",
}

// words splits text into lower-case words, keeping % and µ as word letters
// so "%" and "µs" survive.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '%' && r != '$' && r != '£' && r != '€'
	})
}

// mention is one unit named in a text, and whether "in" (or "number of")
// came right before it ("price in cents"), which marks the unit the field is in.
type mention struct {
	unit string
	in   bool
}

// mentions finds the units a text names, trying two-word spellings first.
func mentions(text string, extra map[string]string) []mention {
	ws := words(text)
	var out []mention
	for i := 0; i < len(ws); i++ {
		name, n := "", 0
		if i+1 < len(ws) {
			if u, ok := unitWords[ws[i]+" "+ws[i+1]]; ok {
				name, n = u, 2
			}
		}
		if n == 0 {
			if u, ok := unitWords[ws[i]]; ok {
				name, n = u, 1
			} else if u, ok := extra[ws[i]]; ok {
				name, n = u, 1
			}
		}
		if n == 0 {
			// "40%" and "$40" arrive glued to digits; look at the sign alone.
			if u, ok := gluedSign(ws[i]); ok {
				name, n = u, 1
			}
		}
		if n == 0 {
			continue
		}
		// "in cents" and "number of seconds" say the field's unit; "hours of
		// day" or "a default of 31 days" do not.
		in := i > 0 && (ws[i-1] == "in" || ws[i-1] == "of" && i > 1 && ws[i-2] == "number")
		if n == 1 && weakWords[ws[i]] && !in && !(i > 0 && (ws[i-1] == "per" || isNumber(ws[i-1]))) {
			continue
		}
		out = append(out, mention{unit: name, in: in})
		i += n - 1
	}
	return out
}

// isNumber reports a word that counts something: digits or a small number word.
func isNumber(w string) bool {
	switch w {
	case "one", "two", "three", "five", "ten", "hundred", "thousand":
		return true
	}
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

func gluedSign(w string) (string, bool) {
	switch {
	case strings.HasSuffix(w, "%"):
		return "percent", true
	case strings.HasPrefix(w, "$"):
		return "dollars", true
	case strings.HasPrefix(w, "£"):
		return "pounds", true
	case strings.HasPrefix(w, "€"):
		return "euros", true
	}
	return "", false
}

// parseUnit reads the unit a text names: the only unit it mentions, or the
// only one introduced by "in"/"of" when it mentions several. Several units
// and no clear choice give no unit: better silent than wrong.
func parseUnit(text string, extra map[string]string) (unit, bool) {
	ms := mentions(text, extra)
	pick := func(keep func(mention) bool) (string, bool) {
		found := ""
		for _, m := range ms {
			if !keep(m) {
				continue
			}
			if found != "" && found != m.unit {
				return "", false
			}
			found = m.unit
		}
		return found, found != ""
	}
	name, ok := pick(func(mention) bool { return true })
	if !ok {
		name, ok = pick(func(m mention) bool { return m.in })
	}
	if !ok {
		return unit{}, false
	}
	return units[name], true
}

// fieldUnit is the unit a field declares: x-unit (proto: a unit option)
// wins over the description (proto: the comments), which wins over the
// title. A tag that names no known unit is kept as written so two different
// spellings still compare.
//
// Prose is not read for a field whose value is not a number or text (a
// Duration's comment saying "a default of 31 days" is not its encoding), nor
// for one whose own name says its unit (timeofday's `hours`): the name is the
// contract there, and prose about it ("hours of a day") is not.
func fieldUnit(f *Field) (unit, bool) {
	if tag := strings.TrimSpace(f.Unit); tag != "" {
		if u, ok := parseUnit(tag, tagWords); ok {
			return u, true
		}
		return unit{Name: tag}, true
	}
	if !scalar(f) || nameHasUnit(f.Name) {
		return unit{}, false
	}
	if u, ok := parseUnit(f.Description, nil); ok {
		return u, true
	}
	return parseUnit(f.Title, nil)
}

// scalar reports whether a field holds a number or text: not a proto
// message, enum or group, nor an OpenAPI object, array of objects or boolean.
func scalar(f *Field) bool {
	switch {
	case f.Format == "message" || f.Format == "enum" || f.Format == "group":
		return false
	case f.Type == "object" || f.Type == "boolean" || f.Map:
		return false
	}
	return true
}

// nameHasUnit reports a field name whose last word is a unit: hours,
// timeout_ms, price_cents, size_bytes.
func nameHasUnit(name string) bool {
	ws := nameWords(name)
	if len(ws) == 0 {
		return false
	}
	last := ws[len(ws)-1]
	if _, ok := unitWords[last]; ok {
		return true
	}
	for _, u := range units {
		if u.Suffix == last {
			return true
		}
	}
	return false
}

// powerOfTen returns k when x is 10^k for a whole k other than 0.
func powerOfTen(x float64) (int, bool) {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	l := math.Log10(x)
	k := math.Round(l)
	if k == 0 || math.Abs(l-k) > 1e-9 {
		return 0, false
	}
	return int(k), true
}

// statesMoney reports whether a field says its value is money: a currency
// or money unit among its name's words (total_usd) or as its unit (x-unit,
// a unit option, or the unit its description or title names).
func statesMoney(f *Field, nameWords []string) bool {
	for _, w := range nameWords {
		if u, ok := units[unitWords[w]]; ok && u.Dim == "money" {
			return true
		}
	}
	if tag := strings.TrimSpace(f.Unit); tag != "" {
		if u, ok := parseUnit(tag, tagWords); ok {
			return u.Dim == "money"
		}
	}
	for _, text := range []string{f.Description, f.Title} {
		if u, ok := parseUnit(text, nil); ok && u.Dim == "money" {
			return true
		}
	}
	return false
}
