// Package texttable lays out rows of text in aligned columns, for the
// plain-text report and the watch screen.
package texttable
