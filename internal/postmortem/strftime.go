package postmortem

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// strftimeRegexp turns a log_filename pattern ("postgresql-%Y-%m-%d_%H%M%S.log")
// into a regexp matching the file names it produces.
func strftimeRegexp(pattern string) (*regexp.Regexp, error) {
	if !utf8.ValidString(pattern) {
		return nil, fmt.Errorf("log_filename %q is not valid UTF-8", pattern)
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '%' || i == len(pattern)-1 {
			j := i + 1
			for j < len(pattern) && pattern[j] != '%' {
				j++
			}
			b.WriteString(regexp.QuoteMeta(pattern[i:j]))
			i = j - 1
			continue
		}
		i++
		b.WriteString(strftimeField(pattern[i]))
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// strftimeField is the regexp of one conversion.
func strftimeField(c byte) string {
	switch c {
	case 'Y', 'G':
		return `\d{4}`
	case 'y', 'm', 'd', 'H', 'M', 'S', 'I', 'C', 'g', 'U', 'V', 'W':
		return `\d{2}`
	case 'j':
		return `\d{3}`
	case 'e', 'k', 'l':
		return `[ \d]\d`
	case 'u', 'w':
		return `\d`
	case 's':
		return `\d+`
	case 'a', 'A', 'b', 'B', 'h', 'Z':
		return `[A-Za-z]+`
	case 'p':
		return `[AaPp][Mm]`
	case 'z':
		return `[+-]\d{4}`
	case '%':
		return `%`
	}
	return `.*`
}

// logFileFor is the file name PostgreSQL writes for a destination: csvlog
// and jsonlog replace a ".log" suffix with ".csv"/".json", or append it.
func logFileFor(filename, dest string) string {
	ext := map[string]string{"csvlog": ".csv", "jsonlog": ".json"}[dest]
	if ext == "" {
		return filename
	}
	if strings.HasSuffix(filename, ".log") {
		return strings.TrimSuffix(filename, ".log") + ext
	}
	return filename + ext
}
