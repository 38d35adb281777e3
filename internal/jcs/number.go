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

// sameDecimal reports whether the JSON numbers a and b (RFC 8259 grammar,
// already checked) have the same decimal value; -0 and 0 are the same.
// CAVEATS.md ("The args digest") refuses a number whose canonical form
// has another value than the number as written — beyond a double's range,
// rounding to zero, or losing digits — so that two arguments with one
// digest denote the same numbers.
func sameDecimal(a, b []byte) bool {
	an, ad, ae, aok := decimalOf(a)
	bn, bd, be, bok := decimalOf(b)
	switch {
	case !aok || !bok:
		return false
	case len(ad) == 0 || len(bd) == 0:
		return len(ad) == len(bd) // zero equals only zero, whatever the sign
	}
	return an == bn && ae == be && string(ad) == string(bd)
}

// decimalOf returns the number s as sign, significant digits (no leading
// or trailing zeros; empty for zero) and exponent e, the value being
// 0.digits × 10^e. ok is false when the written exponent is too long to
// read, which only a number no double holds can have, unless it is zero.
func decimalOf(s []byte) (neg bool, digits []byte, e int64, ok bool) {
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	mant, exp := s, []byte(nil)
	for i, c := range s {
		if c == 'e' || c == 'E' {
			mant, exp = s[:i], s[i+1:]
			break
		}
	}
	point := int64(len(mant))
	for i, c := range mant {
		if c == '.' {
			point = int64(i)
			continue
		}
		digits = append(digits, c)
	}
	for len(digits) > 0 && digits[0] == '0' {
		digits, point = digits[1:], point-1
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return neg, nil, 0, true
	}
	var x int64
	sign := int64(1)
	if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
		if exp[0] == '-' {
			sign = -1
		}
		exp = exp[1:]
	}
	for len(exp) > 0 && exp[0] == '0' {
		exp = exp[1:]
	}
	if len(exp) > maxExponentDigits {
		return neg, digits, 0, false
	}
	for _, c := range exp {
		x = x*10 + int64(c-'0')
	}
	return neg, digits, point + sign*x, true
}
