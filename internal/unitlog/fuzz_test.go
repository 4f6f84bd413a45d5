package unitlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../postmortem/testdata/corpus/[soekp]0*.log")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("Killed /a due to swap used (1) / total (0) being more than 1 %\nsending SIGKILL to process 1 \"x\": badness 1, VmRSS 99999999999999 MiB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range l.Killers {
			if k.Killer == "" || k.Action == "" {
				t.Fatalf("event without killer or action: %+v", k)
			}
		}
	})
}

func FuzzJournal(f *testing.F) {
	f.Add([]byte(`{"__REALTIME_TIMESTAMP":"1","MESSAGE":[1,2,300]}`), true)
	f.Add([]byte("__CURSOR=x\nMESSAGE\n\xff\xff\xff\xff\xff\xff\xff\xff"), false)
	f.Fuzz(func(t *testing.T, b []byte, js bool) {
		format := FormatExport
		if js {
			format = FormatJSON
		}
		text, _, _ := Journal(bytes.NewReader(b), format)
		if _, err := Parse(strings.NewReader(string(text))); err != nil {
			t.Fatal(err)
		}
	})
}
