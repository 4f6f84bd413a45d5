// Package chart draws the charts of dbmem's HTML pages (the lab report,
// the watch history) as self-contained inline SVG: line charts over a
// number or a time axis, with axis titles, round tick steps, dots where a
// series has few points, and marked spans (findings); and horizontal and
// vertical bar charts. Text is escaped; there are no scripts and no
// external references. Presentation attributes make a chart readable
// alone; the classes (chart, title, tick, label, legend, value, grid,
// axis) let a page restyle it.
package chart
