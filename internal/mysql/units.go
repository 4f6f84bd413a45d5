package mysql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBytes reads a size as MySQL accepts it in option files and on the
// command line: a number with an optional K, M, G, T, P or E suffix (powers
// of 1024, case-insensitive), "1G", "134217728", "16M".
func ParseBytes(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := uint64(1)
	if i := strings.IndexByte("KMGTPE", upper(s[len(s)-1])); i >= 0 {
		mult = 1 << (10 * (i + 1))
		s = s[:len(s)-1]
	}
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f*float64(mult) >= math.MaxUint64 {
			return 0, fmt.Errorf("size %q: not a number of bytes", s)
		}
		return uint64(f * float64(mult)), nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	if mult > 1 && v > math.MaxUint64/mult {
		return 0, fmt.Errorf("size %q overflows", s)
	}
	return v * mult, nil
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// ParseBool reads ON/OFF, TRUE/FALSE, YES/NO and 1/0 as the server does.
func ParseBool(s string) (bool, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ON", "TRUE", "YES", "1":
		return true, nil
	case "OFF", "FALSE", "NO", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (ON or OFF)", s)
}

// NormalizeName spells an option as the server's variables do: dashes
// become underscores, lower case ("innodb-buffer-pool-size" ->
// "innodb_buffer_pool_size").
func NormalizeName(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
}
