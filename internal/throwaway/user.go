package throwaway

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"strings"
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
	out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name).CombinedOutput()
	if err != nil {
		return "", nil, fmt.Errorf("useradd %s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	remove := func() error {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			return fmt.Errorf("userdel %s: %w: %s", name, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	return name, remove, nil
}
