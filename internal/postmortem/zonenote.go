package postmortem

import "fmt"

// ambiguousZones are abbreviations that name several zones: a log that
// prints one does not say which, so its time is kept as written.
var ambiguousZones = map[string]string{
	"CST": "China Standard Time (UTC+8), US Central Standard Time (UTC-6) or Cuba Standard Time (UTC-5)",
	"IST": "India (UTC+5:30), Israel (UTC+2) or Irish Standard Time (UTC+1)",
	"AST": "Atlantic (UTC-4) or Arabia Standard Time (UTC+3)",
	"BST": "British Summer Time (UTC+1) or Bangladesh Standard Time (UTC+6)",
	"SST": "Samoa (UTC-11) or Singapore Standard Time (UTC+8)",
	"ECT": "Ecuador (UTC-5) or Eastern Caribbean Time (UTC-4)",
}

// zoneNote says what a database log's zone means for its times: "" when
// it printed a zone dbmem knows.
func zoneNote(known bool, written string) string {
	switch {
	case known:
		return ""
	case ambiguousZones[written] != "":
		return fmt.Sprintf("%s names several zones (%s): the time is shown as the log printed it, not converted; pass the server's log_timezone to place it",
			written, ambiguousZones[written])
	case written != "":
		return fmt.Sprintf("the log's zone %q is not one dbmem knows: the time is shown as printed", written)
	}
	return "the log printed no zone: its times are read in the report's zone"
}
