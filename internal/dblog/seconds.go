package dblog

import (
	"fmt"
	"strconv"
	"time"
)

// parseSecondsFloat reads "0.01" seconds.
func parseSecondsFloat(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e9 {
		return 0, fmt.Errorf("bad seconds %q", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}
