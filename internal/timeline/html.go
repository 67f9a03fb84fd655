package timeline

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
)

//go:embed page.html.tmpl
var pageText string

//go:embed page.js
var pageScript string

// page is what the template draws: the report, arranged for reading.
type page struct {
	*Report
	Columns  []column
	Chart    chart
	Elements []element
	// Script is the page's one script and ScriptHash its CSP hash: the
	// page may run that script and nothing else, and fetch nothing.
	Script     template.JS
	ScriptHash string
}

// column is one release on the timeline: the step that ends at it and
// the head's comparison with it.
type column struct {
	Release Release
	Step    *Step
	Against *Step
}

// element is one operation, rpc, schema or message, with its changes in
// each step.
type element struct {
	ID       int
	Contract string
	Kind     string
	Name     string
	Format   string
	// Search is what the filter matches: the element's name and its file,
	// lower-cased. Not the operations a schema's changes reach: a schema
	// of Stripe's reaches hundreds, and the page would be megabytes of them.
	Search string
	Steps  []elementStep
}

type elementStep struct {
	From, To string
	Findings []Finding
	Changes  []Change
}

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and SVG, one inline script that only filters (the page reads the same
// without it), and a content security policy that lets it fetch nothing.
// Every string from a contract goes through html/template's escaping.
func WriteHTML(w io.Writer, r *Report) error {
	t, err := template.New("page").Funcs(template.FuncMap{
		"lower": strings.ToLower,
		"plus":  func(a, b int) int { return a + b },
		"minus": func(a, b int) int { return a - b },
		"last":  func(s []string) string { return s[len(s)-1] },
		"trunc": trunc,
	}).Parse(pageText)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(pageScript))
	p := &page{Report: r, Columns: columns(r), Elements: elements(r), Script: template.JS(pageScript),
		ScriptHash: "sha256-" + base64.StdEncoding.EncodeToString(sum[:])}
	p.Chart = drawChart(p.Columns)
	bw := bufio.NewWriter(w)
	if err := t.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

func columns(r *Report) []column {
	var out []column
	for _, rel := range r.Releases {
		c := column{Release: rel}
		for i := range r.Steps {
			if r.Steps[i].To == rel.Name {
				c.Step = &r.Steps[i]
			}
		}
		for i := range r.AgainstHead {
			if r.AgainstHead[i].From == rel.Name {
				c.Against = &r.AgainstHead[i]
			}
		}
		out = append(out, c)
	}
	return out
}

// elements arranges the steps' findings and changes by the element they
// are about, elements in the order the changelog sorts groups.
func elements(r *Report) []element {
	type key struct{ contract, name, kind string }
	at := map[key]int{}
	var out []element
	get := func(contract, name, format, kind string, st *Step) *elementStep {
		k := key{contract, name, kind}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, element{Contract: contract, Name: name, Format: format, Kind: kind,
				Search: strings.ToLower(name + " " + contract)})
		}
		e := &out[i]
		if n := len(e.Steps); n == 0 || e.Steps[n-1].To != st.To || e.Steps[n-1].From != st.From {
			e.Steps = append(e.Steps, elementStep{From: st.From, To: st.To})
		}
		return &e.Steps[len(e.Steps)-1]
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		for _, f := range st.Findings {
			es := get(f.Contract, f.Element, f.Format, f.Kind, st)
			es.Findings = append(es.Findings, f)
		}
		for _, c := range st.Changes {
			es := get(c.Contract, c.Element, c.Format, c.Kind, st)
			es.Changes = append(es.Changes, c)
		}
	}
	slices.SortStableFunc(out, func(a, b element) int {
		if a.Kind != b.Kind {
			return strings.Compare(kindOrder(a.Kind), kindOrder(b.Kind))
		}
		return strings.Compare(a.Contract+"\x00"+a.Name, b.Contract+"\x00"+b.Name)
	})
	for i := range out {
		out[i].ID = i + 1
	}
	return out
}

func kindOrder(k string) string {
	switch k {
	case "operation":
		return "1"
	case "schema":
		return "2"
	}
	return "3"
}

// chart is the timeline drawn in SVG: a dot per release on one line and,
// above each, bars for what its step brought (breaks and additions).
type chart struct {
	Width, Height int
	// Base is the line's height; X1 and X2 its ends.
	Base, X1, X2 int
	Points       []point
}

type point struct {
	X                  int
	Name, Date         string
	Oldest, Head, Skip bool
	Bars               []bar
}

type bar struct {
	X, Y, W, H int
	Class      string
	N          int
	Title      string
}

const (
	colWidth  = 150
	barHeight = 90
)

func drawChart(cols []column) chart {
	c := chart{Width: max(len(cols), 1) * colWidth, Height: barHeight + 84, Base: barHeight + 34}
	most := 1
	for _, col := range cols {
		if col.Step != nil {
			for _, n := range stepBars(col.Step) {
				most = max(most, n)
			}
		}
	}
	for i, col := range cols {
		p := point{X: i*colWidth + colWidth/2, Name: col.Release.Name, Date: day(col.Release.Date),
			Oldest: col.Release.OldestSupported, Head: col.Release.Head, Skip: col.Release.Skipped}
		if col.Step != nil {
			names := []string{"errors", "warnings", "additive"}
			for j, n := range stepBars(col.Step) {
				h := int(math.Round(float64(barHeight) * math.Sqrt(float64(n)) / math.Sqrt(float64(most))))
				if n > 0 {
					h = max(h, 2)
				}
				p.Bars = append(p.Bars, bar{X: p.X - 33 + j*23, Y: c.Base - 12 - h, W: 20, H: h,
					Class: names[j], N: n, Title: names[j]})
			}
		}
		c.Points = append(c.Points, p)
	}
	if n := len(c.Points); n > 0 {
		c.X1, c.X2 = c.Points[0].X, c.Points[n-1].X
	}
	return c
}

// stepBars counts a step's errors, warnings and additions over both formats.
func stepBars(st *Step) [3]int {
	var n [3]int
	for _, c := range st.Counts {
		n[0] += c.Errors
		n[1] += c.Warnings
		n[2] += c.Additive
	}
	return n
}

func day(date string) string {
	d, _, _ := strings.Cut(date, "T")
	return d
}

// trunc shortens a fact for the page (a description may be paragraphs);
// the JSON keeps it whole.
func trunc(s string) string {
	const most = 160
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}
