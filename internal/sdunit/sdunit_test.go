package sdunit

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseContinuationCommentsAndBlanks(t *testing.T) {
	as, err := Parse(strings.NewReader("# c\n[Service]\nExecStart=/bin/sh -c \"a \\\n b\"\n; x\nLimitNOFILE = 5000\nOOMPolicy=\n[Install]\nWantedBy=multi-user.target\n"), "f")
	if err != nil || len(as) != 4 {
		t.Fatalf("%+v %v", as, err)
	}
	if as[0].Value != `/bin/sh -c "a  b"` || as[1] != (Assignment{"Service", "LimitNOFILE", "5000", "f"}) || as[2].Value != "" || as[3].Section != "Install" {
		t.Errorf("%+v", as)
	}
}

// The unit files real distributions ship, merged as systemd would.
func TestResolveShippedUnits(t *testing.T) {
	u, err := Resolve("testdata/root", "postgresql@15-main.service")
	if err != nil || u.File != "/lib/systemd/system/postgresql@.service" {
		t.Fatalf("%+v %v", u, err)
	}
	if a, ok := u.Get("OOMScoreAdjust"); !ok || a.Value != "-900" {
		t.Errorf("OOMScoreAdjust %+v", a)
	}
	if _, ok := u.Get("Restart"); ok {
		t.Error("Debian's template leaves Restart= commented out")
	}
	m, _ := Resolve("testdata/root", "mariadb.service")
	if a, _ := m.Get("ExecStart"); !strings.Contains(a.Value, "exec /usr/sbin/mariadbd") {
		t.Errorf("continued ExecStart %q", a.Value)
	}
	if dropInNames("a@b.service")[1] != "a@.service.d" || template("x.service") != "" {
		t.Error("drop-in names")
	}
}

func TestParseShowSeveralUnits(t *testing.T) {
	ms, err := ParseShow(strings.NewReader("OOMPolicy=stop\nSlice=system.slice\n\nManagedOOMSwap=kill\n"))
	if err != nil || len(ms) != 2 || ms[0]["OOMPolicy"] != "stop" || ms[1]["ManagedOOMSwap"] != "kill" {
		t.Fatalf("%+v %v", ms, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[Service]\nA=b\\\n"))
	f.Add([]byte("[\nK=\n=\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		Parse(bytes.NewReader(b), "f")
		ParseShow(bytes.NewReader(b))
	})
}
