package history

import "testing"

func TestLabelText(t *testing.T) {
	for in, want := range map[string]string{
		"page_size=2097152":    "2 MiB pages",
		"page_size=1073741824": "1 GiB pages",
		"engine=mariadb":       "engine=mariadb",
		"page_size=x":          "page_size=x",
		"":                     "",
	} {
		if got := LabelText(in); got != want {
			t.Errorf("LabelText(%q) = %q, want %q", in, got, want)
		}
	}
}
