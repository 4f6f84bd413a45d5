package asowner_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/asowner"
)

const helperArg = "asowner-test-helper"

type request struct {
	Mode string `json:"mode"`
}

type info struct {
	UID, GID uint32
	Groups   []int
	Env      []string
	Cwd      string
}

// TestMain serves requests when the Runner re-executes this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		asowner.Serve(context.Background(), os.Stdin, os.Stdout, handle)
		os.Exit(0)
	}
	if len(os.Args) > 2 && os.Args[1] == askArg {
		os.Exit(askAsNobody(os.Args[2]))
	}
	os.Exit(m.Run())
}

func handle(_ context.Context, r request) (any, error) {
	switch r.Mode {
	case "info":
		groups, _ := os.Getgroups()
		cwd, _ := os.Getwd()
		return info{uint32(os.Geteuid()), uint32(os.Getegid()), groups, os.Environ(), cwd}, nil
	case "huge":
		return strings.Repeat("x", 4096), nil
	case "extra":
		return map[string]any{"UID": 1, "Injected": true}, nil
	}
	return nil, errors.New("unknown mode " + r.Mode)
}

// TestRunAsNobody: the helper runs as the account asked for, with no
// supplementary groups, a minimal environment and / as working directory;
// its answer is bounded and parsed strictly; its errors come back.
func TestRunAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing uid needs root")
	}
	t.Setenv("PGPASSWORD", "must-not-reach-the-helper")
	r := &asowner.Runner{Args: []string{helperArg}, MaxAnswer: 2048}
	nobody := asowner.Account{UID: 65534, GID: 65534, Name: "nobody"}
	ctx := context.Background()
	var got info
	if err := r.Run(ctx, nobody, request{"info"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.UID != 65534 || got.GID != 65534 || len(got.Groups) != 0 || got.Cwd != "/" ||
		len(got.Env) != 1 || got.Env[0] != "LC_ALL=C" {
		t.Errorf("helper ran with %+v", got)
	}
	var s string
	if err := r.Run(ctx, nobody, request{"huge"}, &s); err == nil || !strings.Contains(err.Error(), "more than 2048 bytes") {
		t.Errorf("a 4 KiB answer with a 2 KiB bound: %v", err)
	}
	if err := r.Run(ctx, nobody, request{"extra"}, &info{}); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("an answer with an unknown field: %v", err)
	}
	if err := r.Run(ctx, nobody, request{"nonsense"}, &info{}); err == nil || err.Error() != "unknown mode nonsense" {
		t.Errorf("the helper's error: %v", err)
	}
}

// TestServeRefusesMalformedRequests: the helper answers a request that is
// not one JSON value of the current version with an error, never a panic.
func TestServeRefusesMalformedRequests(t *testing.T) {
	for in, want := range map[string]string{
		`{`: "parse the request",
		`{"version":1,"request":{"mode":"info"}} x`:              "trailing data",
		`{"version":2,"request":{"mode":"info"}}`:                "request version 2",
		`{"version":1,"request":{"mode":"info","password":"x"}}`: "unknown field",
		`{"version":1,"request":{"mode":"nonsense"}}`:            "unknown mode",
	} {
		var out strings.Builder
		if err := asowner.Serve(context.Background(), strings.NewReader(in), &out, handle); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("request %s: answer %s, want %q", in, out.String(), want)
		}
	}
}
