package logredact

import (
	"encoding/json"

	"github.com/dbmem/dbmem/internal/redact"
)

// jsonlog keys that hold query text.
var jsonQueryKeys = []string{"statement", "internal_query", "context"}

// redactJSONLog redacts jsonlog objects key by key; other lines (memory
// context dumps) as in a stderr log.
func redactJSONLog(text []byte, withQueries bool, r *LogCounts) []byte {
	skip := false
	return redactLines(text, func(l string) (string, bool) {
		if out, ok := redactJSONLine(l, withQueries, r); ok {
			return out, true
		}
		return redactPGLine(l, withQueries, &skip, r)
	})
}

// redactJSONLine redacts one jsonlog object; ok is false for other lines.
func redactJSONLine(l string, withQueries bool, r *LogCounts) (string, bool) {
	if len(l) == 0 || l[0] != '{' {
		return "", false
	}
	var obj map[string]any
	if json.Unmarshal([]byte(l), &obj) != nil {
		return "", false
	}
	if !withQueries {
		for _, k := range jsonQueryKeys {
			if _, ok := obj[k]; ok {
				obj[k] = QueryRedacted
				r.Queries++
			}
		}
		for k, sev := range map[string]string{"message": "LOG", "detail": "DETAIL"} {
			if s, ok := obj[k].(string); ok {
				var n int
				obj[k], n, _ = redactPGMessage(sev, s)
				r.Queries += n
			}
		}
	}
	for k, v := range obj {
		if s, ok := v.(string); ok {
			var n int
			if withQueries && (k == "detail" || k == "context") {
				s, n = redactParams(s)
				r.Secrets += n
			}
			obj[k], n = redact.Secrets(s)
			r.Secrets += n
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return "", false
	}
	return string(b), true
}
