package lab

import "time"

// stepper times the run's phases for the progress display and the result.
type stepper struct {
	prog Progress
	out  *[]StepTime
	name string
	at   time.Time
}

func (s *stepper) begin(name string, total int) {
	s.end()
	s.name, s.at = name, time.Now()
	s.prog.Begin(name, total)
}

func (s *stepper) end() {
	if s.name == "" {
		return
	}
	s.prog.End()
	*s.out = append(*s.out, StepTime{Name: s.name, Elapsed: time.Since(s.at)})
	s.name = ""
}
