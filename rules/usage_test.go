package rules

import (
	"testing"
	"time"
)

// Usage says what evidence shows in the words every reporter uses.
func TestUsageWords(t *testing.T) {
	last := time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC)
	month := 30 * 24 * time.Hour
	for _, tc := range []struct {
		u    Usage
		want string
	}{
		{Usage{Calls: 3, Consumers: []string{"ios", "web"}, LastSeen: last, Window: month},
			"called 3 times by 2 clients (ios, web) in the last 30 days, last 2026-12-04"},
		{Usage{Calls: 1, Consumers: []string{"web"}, LastSeen: last, Window: month},
			"called once by 1 client (web) in the last 30 days, last 2026-12-04"},
		{Usage{Consumers: []string{"kiosk"}, Window: month}, "called by 1 client (kiosk) in the last 30 days"},
		{Usage{Window: month, Requests: 1204, Clients: 3, Covered: true}, "no call in 30 days across 1,204 requests from 3 clients"},
		{Usage{Window: 36 * time.Hour}, "no call in 36h0m0s"},
		{Usage{Calls: 2, Consumers: []string{"web"}, LastSeen: last, Window: month, Request: true},
			"sent 2 times by 1 client (web) in the last 30 days, last 2026-12-04"},
		{Usage{Calls: 2, Consumers: []string{"web"}, LastSeen: last, Window: month, Sent: true},
			"sent 2 times to 1 client (web) in the last 30 days, last 2026-12-04: traffic shows it sent, not read; only a consumer contract (Pact) proves a read"},
	} {
		if got := tc.u.String(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.u, got, tc.want)
		}
	}
}
