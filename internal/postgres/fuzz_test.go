package postgres

import (
	"bytes"
	"testing"
)

func FuzzParseTitle(f *testing.F) {
	f.Add("postgres: 15/main: app shop 10.1.2.3(51234) idle in transaction", "15/main")
	f.Add("postgres: :(: (", "")
	f.Fuzz(func(t *testing.T, title, cluster string) {
		if ParseTitle(title, cluster).Role == "" {
			t.Errorf("empty role for %q", title)
		}
	})
}

func FuzzParseConf(f *testing.F) {
	f.Add("shared_buffers = '4GB' # x\ninclude_dir 'conf.d'\nx = 'it''s'\n")
	f.Add("a = '\\")
	f.Fuzz(func(t *testing.T, s string) {
		parseConf(bytes.NewReader([]byte(s)), "fuzz.conf")
		parsePIDFile(s)
		parseCommandLine(splitOpts(s))
		ParseMemory(s, "kB")
	})
}
