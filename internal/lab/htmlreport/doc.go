// Package htmlreport renders a `dbmem lab` result as one self-contained
// HTML page: inline CSS and SVG charts (page tables vs connections, cost per
// connection, TPS and page faults per pgbench run), no script and no
// external resource, so it opens offline.
package htmlreport
