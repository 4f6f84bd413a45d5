package main

import (
	"bytes"
	"encoding/binary"
	"io"
)

// pgSession reads the startup message (refusing TLS), asks for a password
// and records what comes back.
func pgSession(c *recorder) {
	var startup []byte
	for {
		var n int32
		if binary.Read(c, binary.BigEndian, &n) != nil || n < 8 || n > 10000 {
			return
		}
		startup = make([]byte, n-4)
		if _, err := io.ReadFull(c, startup); err != nil {
			return
		}
		if binary.BigEndian.Uint32(startup) != 80877103 { // not an SSLRequest
			break
		}
		c.Write([]byte("N"))
	}
	c.event("startup %q", bytes.ReplaceAll(startup[4:], []byte{0}, []byte{' '}))
	if auth == "md5" {
		c.Write([]byte{'R', 0, 0, 0, 12, 0, 0, 0, 5, 's', 'a', 'l', 't'})
	} else {
		c.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3})
	}
	var typ [1]byte
	var n int32
	if _, err := io.ReadFull(c, typ[:]); err != nil || binary.Read(c, binary.BigEndian, &n) != nil || n < 4 || n > 10000 {
		c.event("no answer to the %s request", authName())
		return
	}
	body := make([]byte, n-4)
	io.ReadFull(c, body)
	c.event("message %c of %d bytes after the %s request", typ[0], len(body), authName())
	c.Write([]byte{'E', 0, 0, 0, 5, 0})
}

func authName() string {
	if auth == "md5" {
		return "md5"
	}
	return "cleartext"
}
