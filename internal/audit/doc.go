// Package audit renders the HTML audit of `dbmem report --html` and
// `dbmem check --html`: one self-contained page a DBA can hand on (no
// script, no external style, font or image; it reads offline and prints
// on A4). It shows where the host's RAM goes, each PostgreSQL instance's
// private cost per role and its page-table projection, the findings
// ranked by the bytes at stake with their evidence, formula and fix, the
// plan's settings, and each instance's budget and X-ray when they were
// computed.
//
// It only renders: every number comes from the typed data it is given
// (snapshot, findings, plan, budgets, X-rays). Text from processes,
// configurations and servers goes through html/template, so it is
// escaped; the charts are internal/chart's inline SVG. Colours are the
// Okabe-Ito palette, readable with every common colour-vision
// deficiency, and nothing is told by colour alone: every bar is labelled,
// every series named in a legend and drawn solid or dashed, and every
// severity written out.
package audit
