package main

import (
	"encoding/binary"
	"io"
)

// nonce is the fixed 20-byte challenge the fake server sends.
var nonce = []byte("abcdefghijklmnopqrst")

// mySession sends a handshake asking for caching_sha2_password, reads the
// client's answer (the auth response is recorded), asks for full
// authentication (a client sends the password in clear over a unix
// socket) and records what comes back.
func mySession(c *recorder) {
	writePacket(c, 0, handshake())
	seq, resp, err := readPacket(c)
	if err != nil {
		c.event("no handshake response")
		return
	}
	c.event("auth response of %d bytes", authResponseLen(resp))
	writePacket(c, seq+1, []byte{0x01, 0x04}) // perform full authentication
	_, more, err := readPacket(c)
	if err != nil {
		c.event("no answer to full authentication")
		return
	}
	c.event("full authentication answer of %d bytes", len(more))
	writePacket(c, seq+3, append([]byte{0xff, 0x15, 0x04, '#', '2', '8', '0', '0', '0'}, "Access denied"...))
}

func handshake() []byte {
	const caps = 1 | 0x200 | 0x2000 | 0x8000 | 0x80000 | 0x200000
	p := []byte{10}
	p = append(p, "8.0.99-rogue\x00"...)
	p = binary.LittleEndian.AppendUint32(p, 7)
	p = append(p, nonce[:8]...)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint16(p, caps&0xffff)
	p = append(p, 0x21, 2, 0)
	p = binary.LittleEndian.AppendUint16(p, caps>>16)
	p = append(p, 21)
	p = append(p, make([]byte, 10)...)
	p = append(p, nonce[8:]...)
	p = append(p, 0)
	return append(p, "caching_sha2_password\x00"...)
}

// authResponseLen finds the auth response in a HandshakeResponse41.
func authResponseLen(p []byte) int {
	if len(p) < 33 {
		return -1
	}
	i := 32
	for i < len(p) && p[i] != 0 {
		i++
	}
	if i+1 >= len(p) {
		return -1
	}
	return int(p[i+1])
}

func writePacket(c io.Writer, seq byte, payload []byte) {
	h := []byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), seq}
	c.Write(append(h, payload...))
}

func readPacket(c io.Reader) (byte, []byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return 0, nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	p := make([]byte, n)
	_, err := io.ReadFull(c, p)
	return h[3], p, err
}
