// Package sdunit reads systemd units as systemd would merge them, without
// systemd: a unit file found in the search paths under a host root (a
// template for an instance), its drop-ins (name.d/*.conf, the template's,
// and the type's, such as service.d/), later assignments overriding
// earlier ones and an empty assignment resetting a list; and the
// "Key=value" lines `systemctl show` prints where systemd is PID 1.
//
// Parsers are pure and never panic (FuzzParse); Resolve does the I/O under
// a root, so a recorded host tree is read the same way as the live one.
package sdunit
