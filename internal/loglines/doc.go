// Package loglines reads a log line by line without ever stopping at a long
// line: bufio.Scanner gives up for good at the first line longer than its
// buffer (and its error is easily dropped), so a single 2 MiB line written
// by some other program would hide every OOM report after it. Read passes
// each line of up to Max bytes to a callback and skips longer ones, counting
// them, so a caller can say "3 over-long lines skipped".
package loglines
