package asowner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version of requests and answers.
const Version = 1

// request is what the parent writes on the helper's stdin.
type request struct {
	Version int             `json:"version"`
	Request json.RawMessage `json:"request"`
}

// answer is what the helper writes on its stdout: a response or an error.
type answer struct {
	Version  int             `json:"version"`
	Response json.RawMessage `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// decodeStrict decodes exactly one JSON value from b into v: unknown
// fields and trailing data are errors.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// readBounded reads all of r, failing when it holds more than max bytes.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("more than %d bytes", max)
	}
	return b, nil
}
