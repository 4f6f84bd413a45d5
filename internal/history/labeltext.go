package history

import (
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// LabelText is a host series' labels for people: "page_size=2097152" is
// "2 MiB pages"; other labels are kept as recorded.
func LabelText(labels string) string {
	var out []string
	for _, l := range strings.Fields(labels) {
		k, v, _ := strings.Cut(l, "=")
		if b, err := strconv.ParseUint(v, 10, 64); err == nil && k == "page_size" {
			out = append(out, units.Bytes(b)+" pages")
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, " ")
}
