package report

// style adds ANSI colour when enabled (a terminal without NO_COLOR).
type style struct{ on bool }

func (s style) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) head(t string) string { return s.wrap("1", t) }
func (s style) warn(t string) string { return s.wrap("33", t) }
func (s style) bad(t string) string  { return s.wrap("31", t) }
func (s style) dim(t string) string  { return s.wrap("2", t) }
