package pagecost

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// scanKV calls fn with the key and the raw value of every "Key: value" line
// of r. Lines without a colon (the smaps_rollup header) are skipped.
func scanKV(r io.Reader, fn func(key, val string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if err := fn(strings.TrimSpace(key), val); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// parseKB parses a value such as " 1234 kB" (or a bare number) to bytes.
func parseKB(key, s string) (uint64, error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 || len(f) == 2 && f[1] != "kB" {
		return 0, fmt.Errorf("%s: want a number of kB, got %q", key, strings.TrimSpace(s))
	}
	v, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	if len(f) == 1 {
		return v, nil
	}
	if v > math.MaxUint64/1024 {
		return 0, fmt.Errorf("%s: %d kB overflows", key, v)
	}
	return v * 1024, nil
}
