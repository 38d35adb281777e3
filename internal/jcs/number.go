package jcs

import (
	"math"
	"strconv"
)

// appendNumber appends f as ECMAScript's Number.prototype.toString writes
// it (ECMA-262 Number::toString, as RFC 8785 §3.2.2.3 requires): the
// shortest digits that read back as f, in plain notation for decimal
// exponents from -6 to 20 and in exponent notation ("1e+21", "1.5e-7")
// outside them; -0 is "0". f must be finite: NaN and infinities, which
// JSON cannot carry, are written as "null", which no caller of this
// package reaches.
func appendNumber(out []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(out, "null"...)
	case f == 0:
		return append(out, '0')
	case f < 0:
		out = append(out, '-')
		f = -f
	}
	// 'e' with precision -1: the shortest digits d.ddd and exponent.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	var digits []byte
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits = append(digits, e[i])
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:])) // "+21", "-07"
	k, n := len(digits), exp+1              // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for j := k; j < n; j++ {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for j := n; j < 0; j++ {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return out
}
