package rules

import (
	"slices"
	"testing"
)

func TestUnreservedGaps(t *testing.T) {
	fields := func(ns ...int32) []*Field {
		var fs []*Field
		for _, n := range ns {
			fs = append(fs, &Field{Number: n})
		}
		return fs
	}
	for _, tc := range []struct {
		name string
		m    *Message
		want []string
	}{
		{"dense", &Message{Fields: fields(1, 2, 3)}, nil},
		{"gaps", &Message{Fields: fields(1, 3, 7)}, []string{"2", "4 to 6"}},
		{"reserved", &Message{Fields: fields(1, 3, 7), ReservedRange: [][2]int32{{2, 2}, {4, 6}}}, nil},
		{"partly reserved", &Message{Fields: fields(7, 1), ReservedRange: [][2]int32{{3, 4}}}, []string{"2", "5 to 6"}},
		{"reserved past the top", &Message{Fields: fields(2), ReservedRange: [][2]int32{{1, 1}, {10, 20}}}, nil},
		{"huge numbers", &Message{Fields: fields(1, 536870911)}, []string{"2 to 536870910"}},
		{"empty", &Message{}, nil},
	} {
		if got := unreservedGaps(tc.m); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSparse(t *testing.T) {
	for _, tc := range []struct {
		ns   []int32
		want bool
	}{
		{[]int32{1, 2, 3}, false},
		{[]int32{1, 3, 7}, false},
		{[]int32{1, 2, 5000}, false},                // large gap, but a low top: likely deleted fields
		{[]int32{3373707, 3575610, 50511102}, true}, // hashed, as compute's are
		{[]int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20000}, true},
	} {
		m := &Message{}
		for _, n := range tc.ns {
			m.Fields = append(m.Fields, &Field{Number: n})
		}
		if got := sparse(m); got != tc.want {
			t.Errorf("sparse(%v) = %v, want %v", tc.ns, got, tc.want)
		}
	}
}

func TestNameWords(t *testing.T) {
	for in, want := range map[string][]string{
		"price_cents":      {"price", "cents"},
		"totalAmount":      {"total", "amount"},
		"Refund-Fee":       {"refund", "fee"},
		"chargeID":         {"charge", "id"},
		"id":               {"id"},
		"costMicrosPValue": {"cost", "micros", "pvalue"},
	} {
		if got := nameWords(in); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
}
