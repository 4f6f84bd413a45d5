package mysql

import "testing"

// TestPlanHugePagesGigantic: with 1 GiB pages the margin's minimum is bytes
// (16 MiB, one page), not 8 pages of 1 GiB; MariaDB 10.5+ maps allocations
// below one page in a smaller page size (my_next_large_page_size picks the
// largest size not above the allocation), MySQL rounds each one up to the
// default size.
func TestPlanHugePagesGigantic(t *testing.T) {
	for _, c := range []struct {
		name          string
		flavor        Flavor
		version       string
		pages, margin uint64
		smaller       int
	}{
		{"MariaDB 10.11: buffer pool 4 + margin 1", MariaDB, "10.11.6-MariaDB", 5, 1, 3},
		{"MySQL 8.0: buffer pool 4 + log buffer 1 + key buffer 1 + margin 1", MySQL, "8.0.35", 7, 1, 0},
	} {
		in := &Instance{Flavor: c.flavor, Settings: Defaults(c.flavor)}
		in.setVersion(c.version)
		in.Settings.set("innodb_buffer_pool_size", "4G", FromConfigFile, "")
		in.Settings.set("large_pages", "ON", FromConfigFile, "")
		p := PlanHugePages(in, 1<<30, 4096)
		if p.Pages != c.pages || p.OwnMarginPages != c.margin || len(p.Smaller) != c.smaller {
			t.Errorf("%s: %d pages (margin %d, %d smaller), want %d (%d, %d): %+v", c.name, p.Pages, p.OwnMarginPages, len(p.Smaller), c.pages, c.margin, c.smaller, p.Lines)
		}
	}
	in := &Instance{Flavor: MariaDB, Settings: Defaults(MariaDB)}
	in.setVersion("10.11.19-MariaDB")
	in.Settings.set("innodb_buffer_pool_size", "1G", FromConfigFile, "")
	if p := PlanHugePages(in, 2<<20, 4096); p.Pages != 712 || p.OwnMarginPages != 64 {
		t.Errorf("2 MiB pages: %d pages, margin %d, want 712 and 64 (as measured with mariadbd)", p.Pages, p.OwnMarginPages)
	}
}
