// Package units formats and parses sizes the way dbmem shows them to people:
// IEC units with three significant digits ("23.5 GiB"), compact table cells
// ("1.5G"), percentages, and sizes as people type them ("64GiB", "512MB"),
// with the few helpers for figures that may not have been read (Or,
// OptInt, Deref, AtoiPtr). It is a leaf package so that every layer formats numbers the same way.
package units
