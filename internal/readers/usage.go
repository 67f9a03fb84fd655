package readers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/source"
)

// usageColumns are the columns of a usage file, CSV header or JSON keys.
var usageColumns = []string{"consumer", "operation", "field", "reads", "last_seen"}

// usageRow is one usage record as written, before it is checked.
type usageRow struct {
	Consumer  string      `json:"consumer"`
	Operation string      `json:"operation"`
	Field     string      `json:"field"`
	Reads     json.Number `json:"reads"`
	LastSeen  string      `json:"last_seen"`
}

func parseUsageJSON(name string, data []byte) ([]Entry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var rows []usageRow
	if err := dec.Decode(&rows); err != nil {
		return nil, source.Errorf(name, 0, 0, "usage file: want an array of {%s}: %v", strings.Join(usageColumns, ", "), err)
	}
	var out []Entry
	var probs source.Problems
	for i, r := range rows {
		e, err := r.entry()
		if err != nil {
			probs = append(probs, source.Problem{File: name, Msg: fmt.Sprintf("entry %d: %v", i+1, err)})
			continue
		}
		e.File, e.Where = name, fmt.Sprintf("entry %d", i+1)
		out = append(out, e)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return out, nil
}

func parseUsageCSV(name string, data []byte) ([]Entry, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, source.Errorf(name, 1, 0, "usage file: want a header row %s: %v", strings.Join(usageColumns, ","), err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, c := range usageColumns {
		if _, ok := col[c]; !ok {
			return nil, source.Errorf(name, 1, 0, "usage file: header lacks column %q (want %s)", c, strings.Join(usageColumns, ","))
		}
	}
	var out []Entry
	var probs source.Problems
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// FieldPos panics without a record: a ParseError carries its line.
			line, col := 0, 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line, col, err = pe.Line, pe.Column, pe.Err
			}
			probs = append(probs, source.Problem{File: name, Line: line, Column: col, Msg: err.Error()})
			break
		}
		line, _ := r.FieldPos(0)
		get := func(c string) string {
			if i := col[c]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row := usageRow{Consumer: get("consumer"), Operation: get("operation"), Field: get("field"),
			Reads: json.Number(get("reads")), LastSeen: get("last_seen")}
		e, err := row.entry()
		if err != nil {
			probs = append(probs, source.Problem{File: name, Line: line, Msg: err.Error()})
			continue
		}
		e.File, e.Where = name, fmt.Sprintf("line %d", line)
		out = append(out, e)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return out, nil
}

// entry checks a row: consumer, operation, reads and last_seen are
// required. operation is "METHOD /path", an rpc ("/pkg.Service/Method" or
// pkg.Service.Method) or a proto message full name. A row without a field
// records calls of an operation or rpc: reads counts the calls and last_seen
// is the last one.
func (r usageRow) entry() (Entry, error) {
	e := Entry{Consumer: r.Consumer, Field: strings.TrimPrefix(r.Field, "$."), Format: FormatUsage}
	if e.Consumer == "" {
		return e, fmt.Errorf("consumer is empty")
	}
	op := strings.TrimSpace(r.Operation)
	bad := fmt.Errorf("operation %q: want \"METHOD /path\", an rpc (/pkg.Service/Method) or a proto message full name", op)
	if method, path, ok := strings.Cut(op, " "); ok {
		path = strings.TrimSpace(path)
		if !strings.HasPrefix(path, "/") {
			return e, bad
		}
		e.Method, e.Path = strings.ToUpper(method), path
	} else if svc, method, ok := strings.Cut(strings.TrimPrefix(op, "/"), "/"); ok {
		if !strings.Contains(svc, ".") || method == "" || strings.Contains(method, "/") {
			return e, bad
		}
		e.RPC = svc + "." + method
	} else if strings.Contains(op, ".") {
		if e.Field == "" {
			e.RPC = op // a message is read field by field; a name alone is an rpc
		} else {
			e.Message = op
		}
	} else {
		return e, bad
	}
	reads, err := strconv.ParseInt(r.Reads.String(), 10, 64)
	if err != nil || reads < 0 {
		return e, fmt.Errorf("reads %q: want a whole number, 0 or more", r.Reads)
	}
	e.Reads = reads
	if e.LastSeen, err = parseTime(r.LastSeen); err != nil {
		return e, err
	}
	return e, nil
}

// parseTime reads a usage row's last_seen.
func parseTime(s string) (time.Time, error) {
	t, err := ParseTime(s)
	if err != nil {
		return t, fmt.Errorf("last_seen %w", err)
	}
	return t, nil
}

// ParseTime accepts RFC 3339 times and plain dates.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want a date (2026-01-31) or an RFC 3339 time", s)
}
