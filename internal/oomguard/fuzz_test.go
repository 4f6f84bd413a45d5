package oomguard

import "testing"

// FuzzEarlyoomArgs: /etc/default/earlyoom and a command line are foreign
// text; reading them never panics.
func FuzzEarlyoomArgs(f *testing.F) {
	f.Add(`EARLYOOM_ARGS="-r 60 -s 15,5 -m 10,5 --avoid '(^|/)(init|sshd)$' --prefer=^java$"`)
	f.Add(`EARLYOOM_ARGS='-m' "--avoid`)
	f.Fuzz(func(t *testing.T, s string) {
		e := Earlyoom{Args: defaultArgs(s)}
		ParseEarlyoomArgs(&e)
		e = Earlyoom{Args: shellWords(s)}
		ParseEarlyoomArgs(&e)
	})
}
