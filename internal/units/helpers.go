package units

import "strconv"

// CeilDiv is n/d rounded up; 0 when d is 0.
func CeilDiv(n, d uint64) uint64 {
	if d == 0 {
		return 0
	}
	return n/d + min(n%d, 1)
}

// Trunc cuts s to its first n bytes and marks the cut with "...".
func Trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// OptInt shows a count, or unknown (Unknown, UnknownCell, or the caller's
// word) when it was not read.
func OptInt(p *int, unknown string) string {
	if p == nil {
		return unknown
	}
	return strconv.Itoa(*p)
}

// Or is s, or what to show instead when it was not read (empty).
func Or(s, unread string) string {
	if s == "" {
		return unread
	}
	return s
}

// Deref is *p, or T's zero value when p is nil (a figure not read).
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// AtoiPtr is s as a whole number, nil when it is not one.
func AtoiPtr(s string) *int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil
	}
	return &n
}

// Sub is a-b, or 0 when b is larger: a size never goes below zero.
func Sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// Opt is &v when ok, else nil (a figure not read).
func Opt[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}

// Unique is in without repeats, in the order first seen.
func Unique[T comparable](in []T) []T {
	var out []T
	seen := map[T]bool{}
	for _, x := range in {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
