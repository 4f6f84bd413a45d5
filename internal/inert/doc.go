// Package inert makes strings from other processes, logs and servers safe to
// print on a terminal. A process name, a query text, a user name sent by an
// unauthenticated client or a line of a log is untrusted: printed raw, an
// escape sequence in it could retitle the window, clear the screen or hide
// lines. Text shows every control character as a Go-style escape, so what a
// hostile string holds is visible and does nothing.
//
// JSON output needs none of this (encoding/json escapes control characters);
// text output passes every foreign string through Text or Line.
package inert
