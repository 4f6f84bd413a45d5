package throwaway

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/dbmem/dbmem/internal/safeexec"
)

// User creates a system account for one throwaway server (no home, no
// login shell, a group of its own) and returns its name and a function
// that deletes it. It needs root and useradd.
func User(prefix string) (string, func() error, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	name := prefix + hex.EncodeToString(b)
	ctx := context.Background()
	_, err := safeexec.Output(ctx, safeexec.Command{Name: "useradd",
		Args: []string{"--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name}})
	if err != nil {
		return "", nil, err
	}
	remove := func() error {
		_, err := safeexec.Output(ctx, safeexec.Command{Name: "userdel", Args: []string{name}})
		return err
	}
	return name, remove, nil
}
