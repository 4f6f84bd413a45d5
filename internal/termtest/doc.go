// Package termtest runs the real dbmem binary on a terminal: tmux gives it
// a pane of a chosen size, send-keys types and capture-pane reads the
// screen. Its tests check that report, check, plan and watch fit 80 and
// 120 columns, that --wide does not, and that watch's keys work and leave
// the terminal as they found it. It has no code outside its tests.
package termtest
