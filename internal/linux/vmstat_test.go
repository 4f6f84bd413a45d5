package linux

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseVMStat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     VMStat
	}{
		{"kernel 6.18", "nr_free_pages 5400000\npswpin 12\npswpout 340\npgmajfault 77\noom_kill 2\n",
			VMStat{PswpIn: 12, PswpOut: 340, PgMajFault: 77, OOMKill: 2, Has: true, HasOOMKill: true}},
		{"before 4.13: no oom_kill", "pswpin 1\npswpout 2\n", VMStat{PswpIn: 1, PswpOut: 2, Has: true}},
		{"malformed lines skipped", "pswpin x\npswpout\noom_kill -1\npgmajfault 5 6\n\n", VMStat{}},
		{"empty", "", VMStat{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseVMStat(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func FuzzParseVMStat(f *testing.F) {
	f.Add([]byte("pswpin 12\npswpout 340\noom_kill 2\n"))
	f.Add([]byte("pswpin 99999999999999999999999\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseVMStat(strings.NewReader(string(b)))
	})
}
