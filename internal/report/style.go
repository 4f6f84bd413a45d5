package report

// style adds ANSI colour when enabled (a terminal without NO_COLOR) and
// carries the width text must fit (0: no limit).
type style struct {
	on    bool
	width int
}

func (s style) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// listWidth is the width of a list under a label (writeLabeled): 100, or
// what the terminal leaves after the label column.
func (s style) listWidth() int {
	if s.width > 0 {
		return max(min(100, s.width-15), 20)
	}
	return 100
}

func (s style) head(t string) string { return s.wrap("1", t) }
func (s style) warn(t string) string { return s.wrap("33", t) }
func (s style) bad(t string) string  { return s.wrap("31", t) }
func (s style) dim(t string) string  { return s.wrap("2", t) }
