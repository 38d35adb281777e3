package caveat

import (
	"math"
	"strconv"
	"strings"
)

// Amount is a sum of money: Micros millionths of one unit of Currency,
// a code of exactly three ASCII uppercase letters (ISO 4217 style, e.g.
// "USD"; the code is not looked up in any registry). Amounts in different
// currencies are never compared or converted.
type Amount struct {
	Micros   uint64
	Currency string
}

const microsPerUnit = 1_000_000

// ParseAmount parses DIGITS[.DECIMALS]CURRENCY: "0.50USD" is
// {500000, "USD"}, "5USD" is {5000000, "USD"}. The whole part is required
// and has no leading zeros ("0.5USD", not "00.5USD" or ".5USD"); a dot must
// be followed by 1 to 6 decimals ("1.USD" and "0.0000001USD" are refused);
// signs, exponents, spaces, thousands separators, lowercase currencies and
// amounts above math.MaxUint64 micros are refused. The error wraps
// [ErrSyntax].
func ParseAmount(s string) (Amount, error) {
	a, why := parseAmount(s)
	if why != "" {
		return Amount{}, syntaxErr(0, "amount %s: %s", show(s), why)
	}
	return a, nil
}

func parseAmount(s string) (Amount, string) {
	const form = "want digits, at most 6 decimals, and a currency, e.g. 0.50USD"
	if len(s) < 4 {
		return Amount{}, form
	}
	num, cur := s[:len(s)-3], s[len(s)-3:]
	if !validCurrency(cur) {
		return Amount{}, "currency must be 3 uppercase letters A-Z, e.g. USD"
	}
	whole, frac, dot := strings.Cut(num, ".")
	units, why := parseDecimal(whole)
	if why != "" {
		if why == errRange {
			return Amount{}, errRange
		}
		return Amount{}, form
	}
	var micros uint64
	if dot {
		if len(frac) == 0 || len(frac) > 6 {
			return Amount{}, "want 1 to 6 decimals after the dot"
		}
		for i := 0; i < len(frac); i++ {
			if frac[i] < '0' || frac[i] > '9' {
				return Amount{}, form
			}
			micros = micros*10 + uint64(frac[i]-'0')
		}
		for i := len(frac); i < 6; i++ {
			micros *= 10
		}
	}
	if units > (math.MaxUint64-micros)/microsPerUnit {
		return Amount{}, errRange
	}
	return Amount{Micros: units*microsPerUnit + micros, Currency: cur}, ""
}

// String returns the canonical text of a: the whole units, then a dot and
// the decimals without trailing zeros when there are any, then the
// currency: "0.5USD", "5USD", "0.000001USD". ParseAmount(a.String()) == a
// for every a with a valid currency.
func (a Amount) String() string {
	b := strconv.AppendUint(make([]byte, 0, 32), a.Micros/microsPerUnit, 10)
	if f := a.Micros % microsPerUnit; f != 0 {
		var d [6]byte
		for i := 5; i >= 0; i-- {
			d[i] = byte('0' + f%10)
			f /= 10
		}
		n := 6
		for d[n-1] == '0' {
			n--
		}
		b = append(append(b, '.'), d[:n]...)
	}
	return string(append(b, a.Currency...))
}

func validCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

const errRange = "number out of range"

// parseDecimal parses a non-negative decimal integer with no sign, no
// leading zeros (except "0" itself) and no other characters, as every
// number of the text form is written. It returns a reason on failure.
func parseDecimal(s string) (uint64, string) {
	if s == "" {
		return 0, "empty number"
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, "number has a leading zero"
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, "not a decimal number"
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, errRange
		}
		n = n*10 + d
	}
	return n, ""
}
