package asowner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// MaxRequest bounds a request read by the helper.
const MaxRequest = 64 << 10

// Serve is the helper's side: it reads one request from stdin (decoded
// strictly into Req), runs h and writes the answer on stdout. It returns
// an error only when it could not write the answer; h's error travels in
// the answer.
func Serve[Req any](ctx context.Context, stdin io.Reader, stdout io.Writer, h func(context.Context, Req) (any, error)) error {
	out := answer{Version: Version}
	if resp, err := serveOne(ctx, stdin, h); err != nil {
		out.Error = err.Error()
	} else if out.Response, err = json.Marshal(resp); err != nil {
		out.Error = "encode the answer: " + err.Error()
	}
	return json.NewEncoder(stdout).Encode(out)
}

func serveOne[Req any](ctx context.Context, stdin io.Reader, h func(context.Context, Req) (any, error)) (any, error) {
	b, err := readBounded(stdin, MaxRequest)
	if err != nil {
		return nil, fmt.Errorf("read the request: %w", err)
	}
	var req request
	if err := decodeStrict(b, &req); err != nil {
		return nil, fmt.Errorf("parse the request: %w", err)
	}
	if req.Version != Version {
		return nil, fmt.Errorf("request version %d, this helper speaks %d", req.Version, Version)
	}
	var r Req
	if err := decodeStrict(req.Request, &r); err != nil {
		return nil, fmt.Errorf("parse the request: %w", err)
	}
	return h(ctx, r)
}
