package caveat_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		in     string
		micros uint64
		cur    string
		out    string
	}{
		{"0.50USD", 500000, "USD", "0.5USD"},
		{"5USD", 5000000, "USD", "5USD"},
		{"0USD", 0, "USD", "0USD"},
		{"0.0USD", 0, "USD", "0USD"},
		{"0.000001USD", 1, "USD", "0.000001USD"},
		{"1.000000EUR", 1000000, "EUR", "1EUR"},
		{"12.345678JPY", 12345678, "JPY", "12.345678JPY"},
		{"18446744073709.551615USD", 18446744073709551615, "USD", "18446744073709.551615USD"},
	} {
		a, err := caveat.ParseAmount(tc.in)
		if err != nil {
			t.Errorf("ParseAmount(%q): %v", tc.in, err)
			continue
		}
		if a.Micros != tc.micros || a.Currency != tc.cur {
			t.Errorf("ParseAmount(%q) = %+v", tc.in, a)
		}
		if a.String() != tc.out {
			t.Errorf("ParseAmount(%q).String() = %q, want %q", tc.in, a.String(), tc.out)
		}
		if b, err := caveat.ParseAmount(a.String()); err != nil || b != a {
			t.Errorf("round trip of %q: %+v, %v", tc.in, b, err)
		}
	}
	for _, in := range []string{
		"", "USD", "5", "5US", "5usd", "5Usd", "5US1", "-1USD", "+1USD", "1e3USD", "1E3USD",
		"1.USD", ".5USD", "0.0000001USD", "1 USD", " 1USD", "1USD ", "1,5USD", "1_000USD",
		"00.5USD", "01USD", "0x10USD", "1.2.3USD", "1.-5USD",
		"18446744073709.551616USD", "18446744073710USD", "99999999999999999999USD",
		"1\u00a0USD", "１USD", "1ÜSD",
	} {
		_, err := caveat.ParseAmount(in)
		wantErr(t, "ParseAmount("+in+")", err, caveat.ErrSyntax)
	}
}
