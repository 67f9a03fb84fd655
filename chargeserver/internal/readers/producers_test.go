package readers_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
)

// TestChromiumRecordsHAR: the HAR built from Chromium's Network events
// holds the page and every request of the script, in order, with the
// browser's User-Agent, the request bodies and the answers.
func TestChromiumRecordsHAR(t *testing.T) {
	base, _ := chargetest.Start(t, apiKeys)
	var doc har
	if err := json.Unmarshal(recordHAR(t, base), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.Log.Entries {
		path := strings.TrimPrefix(e.Request.URL, base)
		if path == "/favicon.ico" {
			continue // the browser's own request, when it makes it in time
		}
		if ua := harValue(e.Request.Headers, "User-Agent"); ua != webUA {
			t.Errorf("%s %s: User-Agent %q, want %q", e.Request.Method, path, ua, webUA)
		}
		if e.Request.Method == "POST" && (e.Request.PostData == nil || !json.Valid([]byte(e.Request.PostData.Text))) {
			t.Errorf("%s %s: no JSON body recorded", e.Request.Method, path)
		}
		if strings.HasPrefix(path, "/v1/charges/ch_") && path != "/v1/charges/"+missingID {
			path = "/v1/charges/{id}"
		}
		got = append(got, e.Request.Method+" "+path+" "+strconv.Itoa(e.Response.Status))
	}
	want := []string{"GET /metrics 200", "POST /v1/charges 201", "POST /v1/charges 201", "GET /v1/charges/{id} 200",
		"GET /v1/charges/{id} 200", "GET /v1/charges/ch_missing 404", "POST /contractlint.charges.v1.ChargeService/GetCharge 200"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("HAR entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNginxLogsJSON: nginx in front of the server writes one JSON object
// a line for every request, with the consumer's User-Agent and the JSON
// request body of every POST, HTTP and Connect alike.
func TestNginxLogsJSON(t *testing.T) {
	upstream, _ := chargetest.Start(t, apiKeys)
	base, accessLog := startNginx(t, hostPort(upstream))
	tr := drive(t, base, connectClient(base))
	f, err := os.Open(accessLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	agents := map[string]int{}
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var rec struct {
			Msec          float64
			RequestMethod string `json:"request_method"`
			RequestURI    string `json:"request_uri"`
			Status        int
			UserAgent     string `json:"http_user_agent"`
			RequestBody   string `json:"request_body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v: %s", n+1, err, sc.Text())
		}
		agents[rec.UserAgent]++
		if rec.RequestMethod == "POST" && !json.Valid([]byte(rec.RequestBody)) {
			t.Errorf("line %d: POST %s without its JSON body: %q", n+1, rec.RequestURI, rec.RequestBody)
		}
		if rec.Msec <= 0 || rec.Status == 0 {
			t.Errorf("line %d: no time or status: %s", n+1, sc.Text())
		}
	}
	if n != tr.requests {
		t.Errorf("%d lines for %d requests", n, tr.requests)
	}
	if agents[chargeclient.UserAgent] != 2 || agents[reportsUA] != 3 || agents[appUA] != 3 {
		t.Errorf("requests by User-Agent: %v", agents)
	}
}

func harValue(hs []harNV, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
